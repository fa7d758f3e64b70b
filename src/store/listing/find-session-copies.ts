import { createHash } from 'node:crypto';
import { isoTime } from '../../codec/iso-time.js';
import type { Dirent } from 'node:fs';
import { opendir, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describeSystemError, fileSystemErrorOf, isSystemError } from '../../errors/index.js';
import { headerFields, readHeaderSync } from '../../session/reading/header.js';
import { manifestFields, readManifestSync } from '../../session/reading/manifest.js';
import { statLine, statOrCode } from '../../fs/files-stamp.js';
import { readJsonFile, type JsonFileResult } from '../../session/reading/read-json-file.js';
import { SESSION_FILES } from '../../session/reading/session-files.js';
import { desktopRegistryPath, readDesktopRegistry, type DesktopRegistryFacts } from '../roots/desktop-registry.js';
import { jsonlMetaTime, readJsonlMeta } from '../jsonl/jsonl-meta.js';
import { isTranscriptName } from '../jsonl/jsonl-names.js';
import { branchIdOf } from '../jsonl/jsonl-sidecars.js';
import type { ReadRoot } from '../roots/roots.js';
import type { SessionCopy } from './session-copy.js';
import { STORES_NEWEST_FIRST, type ListedStore } from '../roots/store-kind.js';
import { locateInStore, type StoreLocation } from '../roots/store-location.js';
import { V0MetaSchema } from './session-copy.js';
import { outgrownMigrations } from './outgrown-migrations.js';
import { recordedCopyIn } from './recorded-copy.js';

export interface FoundCopies {
  copies: SessionCopy[];
  /** Each state root's desktop registry (docs/format.md §12). */
  registries: Map<string, DesktopRegistryFacts>;
  /** Stores that exist but could not be read, and unreadable registries: never shown as empty. */
  warnings: string[];
  /**
   * Every directory listed and file read or looked at: while a stat of each says the same
   * (`filesStamp`), the same roots list the same (a new or removed entry changes its folder's stat).
   */
  looked: string[];
  /** Those of `looked` that are directories whose entries were listed: any entry added or removed there is a change. */
  listed: string[];
  /** The v4 copies (paths) whose transcript changed since it was migrated to them (`outgrownMigrations`). */
  outgrown: ReadonlySet<string>;
}

/** One store directory to enumerate, and what every copy in it shares. */
interface StoreDir {
  dir: string;
  layout: StoreLocation['layout'];
  store: ListedStore;
  root: string;
  scope: StoreLocation['scope'];
  slug: string | null;
  /** The directory's path below the root, `/`-separated: copies' keys start with it. */
  keyDir: string;
}

/**
 * Every session copy under the roots, from directory listings and metadata files only (no log is
 * opened): per state root `projects/<slug>/sessions-v4/`, `sessions-v4/`,
 * `desktop-sessions-v5/by-id/`, `projects/<slug>/sessions/*.jsonl` and `sessions/*.jsonl`; per
 * legacy root its JSONL and v0.x transcripts (docs/format.md §1.2, §1.4, §12). Names starting with `.` are
 * never sessions (docs/format.md §2): `.content-v1`, `.query-cache`, `.trash`, `.<id>.tmp-*` staging.
 */
export async function findSessionCopies(
  roots: ReadRoot[],
  stores: readonly ListedStore[] = STORES_NEWEST_FIRST,
): Promise<FoundCopies> {
  const found: FoundCopies = {
    copies: [],
    registries: new Map(),
    warnings: [],
    looked: [],
    listed: [],
    outgrown: new Set(),
  };
  const storeDirs: StoreDir[] = [];
  for (const root of roots) {
    found.looked.push(root.path);
    if (!(await rootIsThere(root.path))) continue;
    if (root.kind === 'store') storeDirs.push(storeDirNamed(root.path));
    else storeDirs.push(...(await storeDirsUnder(root.path, root.kind === 'legacy' ? 'legacy' : undefined, found)));
    if (root.kind === 'state') {
      found.looked.push(desktopRegistryPath(root.path));
      const registry = await readDesktopRegistry(root.path);
      found.registries.set(root.path, registry);
      if (registry.problem) found.warnings.push(`desktop registry unreadable: ${registry.problem}`);
    }
  }
  const wanted = storeDirs.filter((storeDir) => stores.includes(storeDir.store));
  const perStore = await Promise.all(wanted.map((storeDir) => copiesIn(storeDir, found)));
  found.copies = perStore.flat();
  found.outgrown = await outgrownMigrations(found.copies, recordedCopyIn(found.copies), found.looked);
  return found;
}

/**
 * Whether a root is there to read. A missing one holds nothing; one the system will not list (permission
 * denied, a file where the folder should be) is the one coded error it is, with its path, rather than
 * "no session matches" or a warning for every store below it.
 */
async function rootIsThere(root: string): Promise<boolean> {
  try {
    await (await opendir(root)).close();
    return true;
  } catch (error) {
    // A name too long for the file system names nothing there, as a missing one does (what was typed decides).
    if (isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENAMETOOLONG')) return false;
    throw fileSystemErrorOf(error, root);
  }
}

/** The store directories of a state root (or, as `legacy`, of a legacy root's JSONL layout). */
async function storeDirsUnder(root: string, legacy: 'legacy' | undefined, found: FoundCopies): Promise<StoreDir[]> {
  const dirs: StoreDir[] = [];
  const add = (keyDir: string, layout: StoreLocation['layout'], slug: string | null) => {
    const store: ListedStore = legacy ?? layout;
    dirs.push({
      dir: join(root, ...keyDir.split('/')),
      layout,
      store,
      root,
      scope: slug === null ? 'global' : 'workspace',
      slug,
      keyDir,
    });
  };
  if (!legacy) {
    add('sessions-v4', 'sessions-v4', null);
    add('desktop-sessions-v5/by-id', 'desktop-sessions-v5', null);
  }
  add('sessions', 'jsonl', null);
  const projects = join(root, 'projects');
  for (const slug of await listEntries(projects, found)) {
    if (slug.name.startsWith('.') || !(await isOrLeadsTo(slug, projects, 'folder'))) continue;
    if (!legacy) add(`projects/${slug.name}/sessions-v4`, 'sessions-v4', slug.name);
    add(`projects/${slug.name}/sessions`, 'jsonl', slug.name);
  }
  return dirs;
}

/** `RXSTORE_ROOT` naming one store directory: its kind and root come from the folders around it. */
function storeDirNamed(dir: string): StoreDir {
  const location = locateInStore(join(dir, 'session')) ?? {
    layout: 'sessions-v4',
    scope: 'global',
    slug: null,
    key: 'sessions-v4/session',
  };
  const keyDir = location.key.slice(0, -'/session'.length);
  // The key names the same folders as the path's end, one separator each.
  const root = dir.slice(0, dir.length - keyDir.length - 1);
  return {
    dir,
    layout: location.layout,
    store: location.layout,
    root,
    scope: location.scope,
    slug: location.slug,
    keyDir,
  };
}

/**
 * Whether an entry is a folder (or a file), or a symbolic link to one: Reasonix opens a workspace's folder of
 * sessions, or a transcript, through a link as the system follows it (measured with 1.38.11). A link that leads
 * nowhere, or in a loop, is none.
 */
async function isOrLeadsTo(entry: Dirent, dir: string, kind: 'folder' | 'file'): Promise<boolean> {
  if (!entry.isSymbolicLink()) return kind === 'folder' ? entry.isDirectory() : entry.isFile();
  const target = await stat(join(dir, entry.name)).catch(() => undefined);
  return kind === 'folder' ? target?.isDirectory() === true : target?.isFile() === true;
}

/** Directory entries; a missing directory has none, an unreadable one is reported. */
async function listEntries(dir: string, found: FoundCopies): Promise<Dirent[]> {
  found.looked.push(dir);
  found.listed.push(dir);
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.some((entry) => entry.name.includes('\uFFFD')) ? await utf8Named(dir, entries, found) : entries;
  } catch (error) {
    // The system's answer (missing: no entries; unreadable: a warning); anything else is a fault and surfaces.
    if (!isSystemError(error)) throw error;
    if (error.code !== 'ENOENT') found.warnings.push(`cannot read ${describeSystemError(error)}`);
    return [];
  }
}

/**
 * The entries whose names are UTF-8. Node reads a name that is not as text with U+FFFD in place of its bytes,
 * a path that names nothing: each such entry (a workspace folder Reasonix was run in, named in another encoding)
 * is said, not passed over in silence, as rxstore cannot read what is under it by name.
 */
async function utf8Named(dir: string, entries: Dirent[], found: FoundCopies): Promise<Dirent[]> {
  const raw = await readdir(dir, { encoding: 'buffer' });
  const unnamed = raw.filter((name) => !Buffer.from(name.toString('utf8'), 'utf8').equals(name));
  for (const name of unnamed)
    found.warnings.push(
      `${join(dir, bytesShown(name))}: a name that is not UTF-8: rxstore cannot read what is under it, and leaves it out`,
    );
  const lost = new Set(unnamed.map((name) => name.toString('utf8')));
  return entries.filter((entry) => !lost.has(entry.name));
}

/** A name's bytes as text: printable ASCII as it is, every other byte as `\xNN`. */
function bytesShown(name: Buffer): string {
  return [...name]
    .map((byte) =>
      byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

async function copiesIn(storeDir: StoreDir, found: FoundCopies): Promise<SessionCopy[]> {
  const entries = await listEntries(storeDir.dir, found);
  if (storeDir.layout === 'jsonl') {
    const names = new Set(entries.map((entry) => entry.name));
    const transcripts: Dirent[] = [];
    for (const entry of entries)
      if (isTranscriptName(entry.name) && (await isOrLeadsTo(entry, storeDir.dir, 'file'))) transcripts.push(entry);
    return Promise.all(transcripts.map((entry) => transcriptCopy(storeDir, entry.name, names, found.looked)));
  }
  const sessions = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'));
  return Promise.all(sessions.map((entry) => v4Copy(storeDir, entry.name, found.looked)));
}

/** What every copy in a store directory shares, and where this one sits. */
function facts(storeDir: StoreDir, id: string, path: string) {
  const { store, root, scope, slug, keyDir } = storeDir;
  return { id, store, path, root, scope, slug, key: `${keyDir}/${basename(path)}` };
}

async function v4Copy(storeDir: StoreDir, id: string, looked: string[]): Promise<SessionCopy> {
  const dir = join(storeDir.dir, id);
  const log = join(dir, SESSION_FILES.log);
  const [manifestPath, headerPath] = [join(dir, SESSION_FILES.manifest), join(dir, SESSION_FILES.header)];
  looked.push(log, manifestPath, headerPath);
  // Each file cut down to what is kept before the next is read: every copy is found before one is read.
  const manifest = keptOf(readManifestSync(manifestPath), manifestFields);
  const header = keptOf(readHeaderSync(headerPath), headerFields);
  // Every append rewrites the log, so its mtime is when the session last changed.
  const logStats = statOrCode(log);
  // With no log, the session folder's stat says when it changed; with none either (a store folder this user may
  // list but not search), nothing does: the copy is listed all the same, its files said unreadable.
  if (typeof logStats === 'string') looked.push(dir);
  const changed = typeof logStats === 'string' ? statOrCode(dir) : logStats;
  return {
    ...facts(storeDir, id, dir),
    format: 'v4',
    manifest,
    header,
    logStatLine: typeof logStats === 'string' ? undefined : statLine(log, logStats),
    logSize: typeof logStats === 'string' ? undefined : Number(logStats.size),
    updatedAt: typeof changed === 'string' ? null : isoTime(changed.mtime),
  };
}

/**
 * A metadata file as a listing keeps it until it has read every copy: the fields Reasonix reads, and
 * the text as its digest (all that is done with it: the summary cache keys on it). A key Reasonix
 * ignores may hold megabytes; kept whole for every copy at once, they ran a listing out of memory.
 */
function keptOf<T>(read: JsonFileResult<T>, fields: (value: T) => T): JsonFileResult<T> {
  if (read.state !== 'ok') return read;
  return { state: 'ok', value: fields(read.value), text: createHash('sha256').update(read.text).digest('hex') };
}

async function transcriptCopy(
  storeDir: StoreDir,
  name: string,
  names: Set<string>,
  looked: string[],
): Promise<SessionCopy> {
  const path = join(storeDir.dir, name);
  const id = branchIdOf(path);
  looked.push(path);
  const stats = statOrCode(path);
  const changed = typeof stats === 'string' ? null : isoTime(stats.mtime);
  // A v0.x transcript has `<name>.meta.json`; a 1.x one `<name>.jsonl.meta` (docs/format.md §11.3, §11.4).
  if (names.has(`${id}.meta.json`) && !names.has(`${name}.meta`)) {
    looked.push(join(storeDir.dir, `${id}.meta.json`));
    const meta = await readJsonFile(join(storeDir.dir, `${id}.meta.json`), V0MetaSchema);
    return { ...facts(storeDir, id, path), format: 'v0', meta, updatedAt: changed };
  }
  looked.push(`${path}.meta`);
  const meta = await readJsonlMeta(path);
  const updatedAt = (meta.state === 'ok' ? isoTime(jsonlMetaTime(meta.value.updated_at)) : null) ?? changed;
  return { ...facts(storeDir, id, path), format: 'jsonl', meta, updatedAt };
}
