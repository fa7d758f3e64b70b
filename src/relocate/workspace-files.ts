import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import * as z from 'zod';
import { CONTENT_DIR } from '../codec/content-store.js';
import { goJsonIndented } from '../codec/go-json/go-json.js';
import { DamagedStoreError, WriterOwnedError, isSystemError } from '../errors/index.js';
import { DIR_MODE, fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import { failPoint } from '../fs/fail-point.js';
import { waitOsLock } from '../fs/os-lock.js';
import { MIGRATION_MAP, MigrationMapSchema, recordMigration } from '../migrate/migration-map.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { desktopRegistryPath } from '../store/roots/desktop-registry.js';
import { allFiles } from './plan-relocation.js';
import { DESKTOP_SESSIONS, type RelocationPlan, type StorePlan } from './relocation-plan.js';
import { acquireWriterLocks } from '../session/reading/writer-locks.js';
import { rewriteHeader } from './move-v4-session.js';
import { bringFile, copyVerified, moveEntry, present } from './move-entry.js';
import { rewritePathField } from './rewrite-path-field.js';
import { makeFolders } from '../fs/make-folders.js';

/**
 * The moved sessions' entries of the old store's `migration-map.json` (docs/format.md §10.1), added
 * to the new store's under its lock, each `sourcePath` in the old JSONL folder pointed at the
 * transcript's new place: resumed by its JSONL id from the new folder, a migrated transcript finds
 * the session it became instead of being migrated again.
 */
export async function carryMigrationMap(plan: RelocationPlan, store: StorePlan): Promise<void> {
  const [oldStore, newStore] = [join(store.fromDir, 'sessions-v4'), join(store.toDir, 'sessions-v4')];
  const read = readableOrThrow(await readJsonFile(join(oldStore, MIGRATION_MAP), MigrationMapSchema));
  if (read.state === 'missing') return;
  if (read.state === 'invalid')
    throw new DamagedStoreError(
      `${join(oldStore, MIGRATION_MAP)} is not valid (${read.reason}): the sessions were moved, the map was not`,
      { file: join(oldStore, MIGRATION_MAP) },
    );
  const [oldJsonl, newJsonl] = [join(store.fromDir, 'sessions') + sep, join(store.toDir, 'sessions') + sep];
  const moved = new Set(
    store.sessions.filter((session) => session.store === 'sessions-v4').map((session) => session.id),
  );
  for (const entry of read.value.entries ?? []) {
    if (plan.session !== null && !moved.has(entry.targetId)) continue;
    const sourcePath = entry.sourcePath.startsWith(oldJsonl)
      ? newJsonl + entry.sourcePath.slice(oldJsonl.length)
      : entry.sourcePath;
    await recordMigration(newStore, { ...entry, sourcePath });
  }
  failPoint('relocate.map-carried');
}

/** `.titles.json` of a JSONL store folder: transcript file name → title (docs/format.md §11.4). */
const TitlesSchema = z.record(z.string(), z.unknown());
const TITLES = '.titles.json';

/** The moved transcripts' titles, added to the new JSONL store's `.titles.json` (a title already there is kept). */
export async function carryTitles(plan: RelocationPlan, store: StorePlan): Promise<void> {
  const [from, to] = [join(store.fromDir, 'sessions', TITLES), join(store.toDir, 'sessions', TITLES)];
  const old = readableOrThrow(await readJsonFile(from, TitlesSchema));
  if (old.state !== 'ok') return;
  const names = new Set(
    store.sessions.filter((session) => session.store === 'jsonl').map((session) => `${session.id}.jsonl`),
  );
  const carried = Object.entries(old.value).filter(([name]) => plan.session === null || names.has(name));
  if (carried.length === 0) return;
  const now = readableOrThrow(await readJsonFile(to, TitlesSchema));
  const merged = { ...(now.state === 'ok' ? now.value : {}) };
  let changed = false;
  for (const [name, title] of carried) {
    if (name in merged) continue;
    merged[name] = title;
    changed = true;
  }
  if (changed) await writeFileAtomic(to, goJsonIndented(merged), { point: 'relocate.titles' });
}

/** The old slug folder's other entries (Reasonix keeps more than sessions there), moved whole where the new one has none of that name. */
export async function carryOthers(plan: RelocationPlan, store: StorePlan, left: string[]): Promise<void> {
  for (const name of store.others) {
    const [from, to] = [join(store.fromDir, name), join(store.toDir, name)];
    if (!(await present(from))) continue;
    if (await present(to)) {
      left.push(`${from} (the new workspace has its own ${name})`);
      continue;
    }
    if (plan.keep) {
      makeFolders(store.toDir, DIR_MODE);
      await copyVerified(from, to);
    } else await moveEntry(from, to, 'relocate.other-moved');
  }
}

/** The desktop registry's workspaces rooted at the old folder rooted at the new one, under the registry's lock; every other byte kept. */
export async function rerootDesktopWorkspaces(plan: RelocationPlan, store: StorePlan): Promise<void> {
  if (store.desktopWorkspaces.length === 0) return;
  const path = desktopRegistryPath(store.stateRoot);
  const lock = await waitOsLock(`${path}.lock`, 200, 10);
  if (!lock)
    throw new WriterOwnedError(
      `${path} stayed locked by the desktop app: the sessions were moved, its workspaces were not; relocate again once it is closed`,
      { file: `${path}.lock` },
    );
  try {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    const rewritten =
      text === undefined ? undefined : rewritePathField(text, 'root', plan.from, plan.to, plan.platform);
    if (rewritten !== undefined) await writeFileAtomic(path, rewritten, { point: 'relocate.registry' });
  } finally {
    await lock.release();
  }
}

/** The desktop sessions the plan names get `header.json` `cwd` pointed at the new folder, each under its writer locks (so no Reasonix opens it meanwhile). */
export async function rerootDesktopSessions(plan: RelocationPlan, store: StorePlan): Promise<void> {
  for (const id of store.desktopSessions) {
    const dir = join(store.stateRoot, ...DESKTOP_SESSIONS.split('/'), id);
    if (!(await present(dir))) continue;
    const locks = await acquireWriterLocks(dir);
    try {
      await rewriteHeader(plan, dir);
    } finally {
      await locks.release();
    }
    failPoint('relocate.desktop-header');
  }
}

/**
 * Every object and integrity index of the old store's shared content store, in the new one (linked,
 * or copied and checked): brought before any session of a whole workspace moves, so a session in
 * its new place finds every payload its log names, and again before the old store is removed, for
 * objects no log names (Reasonix's recent-message cache).
 */
export async function bringContentStore(store: StorePlan): Promise<void> {
  const content = join(store.fromDir, 'sessions-v4', CONTENT_DIR);
  for (const file of await allFiles(content)) {
    const part = relative(content, file);
    if (part.startsWith(`objects${sep}`) || part.startsWith(`indexes${sep}`))
      await bringFile(file, join(store.toDir, 'sessions-v4', CONTENT_DIR, part), store.sameDevice);
  }
  failPoint('relocate.content-carried');
}

/** Names in an old sessions-v4 store that are Reasonix's housekeeping of sessions now moved (docs/format.md §2). */
const HOUSEKEEPING = (name: string) =>
  name === CONTENT_DIR ||
  name === '.query-cache' ||
  name === '.recovery-cache' ||
  name === MIGRATION_MAP ||
  name === `${MIGRATION_MAP}.lock` ||
  name === '.rxstore.lock' ||
  /^\..+\.ownership\.lock$/.test(name);

/**
 * Once every session has left the old slug's folder: the rest of its content store (objects no log
 * names, such as Reasonix's recent-message cache) brought over, then its housekeeping removed and
 * its folders with it. Anything rxstore does not know is left where it is, and said.
 */
export async function clearOldFolder(store: StorePlan, left: string[]): Promise<void> {
  const oldStore = join(store.fromDir, 'sessions-v4');
  const names = await readdir(oldStore, { withFileTypes: true }).catch(() => []);
  if (names.some((entry) => entry.isDirectory() && !entry.name.startsWith('.'))) return;
  await bringContentStore(store);
  for (const entry of names)
    if (HOUSEKEEPING(entry.name)) await rm(join(oldStore, entry.name), { recursive: true, force: true });
  await rm(join(store.fromDir, 'sessions', TITLES), { force: true });
  for (const dir of [oldStore, join(store.fromDir, 'sessions'), store.fromDir]) await removeIfEmpty(dir, left);
  await fsyncDir(join(store.stateRoot, 'projects')).catch(() => undefined);
  failPoint('relocate.old-cleared');
}

async function removeIfEmpty(dir: string, left: string[]): Promise<void> {
  await rmdir(dir).catch((error: unknown) => {
    if (isSystemError(error) && error.code === 'ENOENT') return;
    if (isSystemError(error) && (error.code === 'ENOTEMPTY' || error.code === 'EEXIST')) {
      left.push(dir);
      return;
    }
    throw error;
  });
}
