import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { OverwriteRefusedError, RxError, undefinedIfMissing, WriterOwnedError } from '../errors/index.js';
import { withStoreLock } from '../fs/store-lock.js';
import { OUTPUT_DIR_MODE, OUTPUT_FILE_MODE, writeFileAtomic } from '../fs/atomic-write.js';
import { checkFile, checkFolder } from '../fs/path-kind.js';
import { writeStreamAtomic } from '../fs/atomic-stream.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import type { ListedSession } from '../store/listing/describe-conversation.js';
import { openSession } from '../store/open-session.js';
import type { Platform } from '../store/roots/platform.js';
import { carriesGeneratorMark, entryAt, type GeneratorMarks } from './page-file.js';
import type { PageRenderer } from './page-renderer.js';
import { readSessionView } from './session-view.js';
import {
  pageFileName,
  RENDERER_VERSION,
  SITE_STATE_FILE,
  SiteStateSchema,
  type SitePage,
  type SiteState,
} from './site-state.js';
import { makeFolders } from '../fs/make-folders.js';

export interface SiteReport {
  index: string;
  sessions: number;
  written: number;
  unchanged: number;
  removed: number;
  /** Sessions rendered up to damage (or not at all), with why. */
  damaged: { id: string; path: string; problem: string }[];
}

/**
 * Writes a static site of sessions into `dir`: `index.html` and one page per session under
 * `sessions/`. A session whose log (size, modification time) and listing are what they were when
 * its page was written is not read again; pages rxstore wrote of sessions no longer listed are
 * removed. Every file is written through a temp file and a rename, after its size is checked; a
 * file or folder rxstore did not write is refused unless `force` (`OverwriteRefusedError`).
 */
export async function writeSite(
  sessions: AsyncIterable<ListedSession>,
  dir: string,
  options: SiteOptions,
): Promise<SiteReport> {
  const given = options.given ?? dir;
  await checkFolder(dir, given);
  makeFolders(dir, OUTPUT_DIR_MODE);
  // One run at a time writes a site: a second waits for the first, or is told another is writing it.
  try {
    return await withStoreLock(dir, () => writeSiteHeld(sessions, dir, options));
  } catch (error) {
    if (error instanceof WriterOwnedError && error.data.file === join(dir, SITE_LOCK)) {
      throw new WriterOwnedError(`${given}: another rxstore is writing this site; try again once it is done`, {
        file: given,
      });
    }
    throw error;
  }
}

/** How `writeSite` writes. */
export interface SiteOptions {
  renderer: PageRenderer;
  platform: Platform;
  now?: Date;
  resume?: (listed: ListedSession) => string | null;
  /** Write over files and folders rxstore did not write (never through a symlink). */
  force?: boolean;
  /** The folder as the user named it, for messages; default `dir`. */
  given?: string;
}

/** The lock `withStoreLock` holds in the site folder while a run writes it. */
const SITE_LOCK = '.rxstore.lock';

async function writeSiteHeld(
  sessions: AsyncIterable<ListedSession>,
  dir: string,
  options: SiteOptions,
): Promise<SiteReport> {
  const force = options.force ?? false;
  const given = options.given ?? dir;
  const shown = (name: string) => join(given, name);
  const pagesDir = join(dir, 'sessions');
  const statePath = join(dir, SITE_STATE_FILE);
  const previous = await siteState(dir, shown(SITE_STATE_FILE), force, options.renderer.marks);
  // Pages the state says rxstore wrote are its own to rewrite or remove once each carries the generator mark;
  // those of this renderer may be kept. A state alone never makes a file rxstore's: it may have been planted, and
  // renderers before view-3 wrote no mark, so their pages are left (never removed; written over only with --force).
  const owned = new Set(previous?.pages.map((page) => page.file));
  const { marks } = options.renderer;
  const ours = async (path: string) =>
    (await entryAt(path))?.isFile() === true && (await carriesGeneratorMark(path, marks));
  const known = new Map<string, SitePage>();
  if (previous?.renderer === RENDERER_VERSION) for (const page of previous.pages) known.set(page.file, page);

  const report: SiteReport = {
    index: join(dir, 'index.html'),
    sessions: 0,
    written: 0,
    unchanged: 0,
    removed: 0,
    damaged: [],
  };
  // Anything but a regular file is refused as it is, --force or not: never one to suggest --force for.
  const indexEntry = await checkFile(report.index, shown('index.html'));
  if (indexEntry && !force && !(await ours(report.index))) {
    throw new OverwriteRefusedError(
      `${shown('index.html')}: a file rxstore did not write (it has no generator mark); --force writes the site over it`,
      { file: shown('index.html') },
    );
  }
  const pagesEntry = await entryAt(pagesDir);
  if (pagesEntry && !pagesEntry.isDirectory()) {
    // A symlink is never followed out of the site: what it leads to is not rxstore's to write.
    const what = pagesEntry.isSymbolicLink() ? 'a symlink' : 'not a folder';
    throw new OverwriteRefusedError(
      `${shown('sessions')}: ${what}; rxstore writes pages only into a folder of its own there`,
      { file: shown('sessions') },
    );
  }
  makeFolders(pagesDir, OUTPUT_DIR_MODE);
  const pages: SitePage[] = [];
  const taken = new Set<string>();
  for await (const listed of sessions) {
    const file = uniqueName(pageFileName(listed.id), taken);
    const pagePath = join(pagesDir, file);
    const digest = await sessionDigest(listed);
    const before = known.get(file);
    report.sessions += 1;
    const entry = await checkFile(pagePath, shown(join('sessions', file)));
    if (before && before.digest === digest && before.path === listed.path && entry?.isFile()) {
      pages.push(before);
      report.unchanged += 1;
      if (before.problem) report.damaged.push({ id: listed.id, path: listed.path, problem: before.problem });
      continue;
    }
    if (entry && !force && !(await ours(pagePath))) {
      throw new OverwriteRefusedError(
        `${shown(join('sessions', file))}: a file rxstore did not write (it has no generator mark); --force writes over it`,
        { file: shown(join('sessions', file)) },
      );
    }
    let view;
    try {
      view = await readSessionView(await openSession(listed.path), {
        platform: options.platform,
        ...(options.resume ? { resume: options.resume(listed) } : {}),
      });
    } catch (error) {
      // One session rxstore cannot read (the system refuses it, it is larger than rxstore holds) gets no
      // page and a line with its code; the site goes on with the rest.
      if (!(error instanceof RxError)) throw error;
      report.damaged.push({
        id: listed.id,
        path: listed.path,
        problem: `${error.code}: ${error.data.file && !error.message.startsWith(error.data.file) ? `${error.data.file}: ` : ''}${error.message}`,
      });
      continue;
    }
    await writeStreamAtomic(pagePath, options.renderer.html(view), { mode: OUTPUT_FILE_MODE });
    const stopped = view.stoppedBy();
    const problem = stopped ? options.renderer.problem(stopped) : null;
    if (problem) report.damaged.push({ id: listed.id, path: listed.path, problem });
    const { header } = view;
    pages.push({
      file,
      digest,
      id: listed.id,
      path: listed.path,
      store: listed.store,
      title: header.title ?? listed.title,
      workspace: header.workspace ?? listed.workspace,
      startedAt: header.startedAt,
      updatedAt: header.updatedAt ?? listed.updatedAt,
      messages: header.counts.messages,
      toolCalls: header.counts.toolCalls,
      status: header.status,
      problem,
    });
    report.written += 1;
  }
  for (const file of owned) {
    if (taken.has(file)) continue;
    // Only a regular file of rxstore's the state names (a checked page name, so inside `sessions/`) is removed: never what a symlink leads to.
    const path = join(pagesDir, file);
    if (!(await ours(path))) continue;
    await rm(path, { force: true });
    report.removed += 1;
  }
  await writeFileAtomic(report.index, options.renderer.index(pages, (options.now ?? new Date()).toISOString()), {
    mode: OUTPUT_FILE_MODE,
  });
  await writeFileAtomic(statePath, `${JSON.stringify({ format: 1, renderer: RENDERER_VERSION, pages }, null, 1)}\n`, {
    mode: OUTPUT_FILE_MODE,
  });
  return report;
}

/**
 * The site state rxstore left in `dir`, checked before anything is done by it: every page name one
 * rxstore gives, inside `sessions/`. None when the folder is new or empty. A state that is not
 * rxstore's (invalid, a symlink), or a folder of other files without one, is refused unless `force`
 * (then nothing it names is touched).
 */
async function siteState(
  dir: string,
  shown: string,
  force: boolean,
  marks: GeneratorMarks,
): Promise<SiteState | undefined> {
  const statePath = join(dir, SITE_STATE_FILE);
  const entry = await entryAt(statePath);
  if (!entry) {
    const names = await readdir(dir).catch((error: unknown) => undefinedIfMissing(error, dir));
    // A first run cut short (a full disk, a kill) leaves marked pages and no state yet: that is rxstore's own, to finish.
    if (!force && names && !(await onlyPartialSite(dir, names, marks))) {
      throw new OverwriteRefusedError(
        `${dirname(shown)}: a folder rxstore did not write (it holds files and no ${SITE_STATE_FILE}); --force writes the site into it`,
        { file: dirname(shown) },
      );
    }
    return undefined;
  }
  const read = entry.isSymbolicLink()
    ? ({ state: 'invalid', reason: 'a symlink' } as const)
    : readableOrThrow(await readJsonFile(statePath, SiteStateSchema));
  if (read.state === 'ok') return read.value;
  if (force) return undefined;
  const why = read.state === 'invalid' ? read.reason : 'missing';
  throw new OverwriteRefusedError(
    `${shown}: not site state rxstore wrote (${why}); --force writes the site anew and removes nothing it names`,
    { file: shown },
  );
}

/**
 * Whether a folder without site state holds only what a first run of rxstore leaves when it is cut
 * short: its lock, an `index.html` and a `sessions/` folder of regular files that all carry the
 * generator mark. Nothing else in it, and no symlink, is rxstore's.
 */
async function onlyPartialSite(dir: string, names: string[], marks: GeneratorMarks): Promise<boolean> {
  for (const name of names) {
    if (name === SITE_LOCK) continue;
    if (name === 'index.html' && (await carriesGeneratorMark(join(dir, name), marks))) continue;
    if (name !== 'sessions' || !(await entryAt(join(dir, name)))?.isDirectory()) return false;
    for (const page of await readdir(join(dir, name)))
      if (!(await carriesGeneratorMark(join(dir, name, page), marks))) return false;
  }
  return true;
}

/**
 * What a page depends on, as a digest: the session's files (a log only grows or is rewritten, and
 * either changes its size or modification time) and what the listing says of it.
 */
async function sessionDigest(listed: ListedSession): Promise<string> {
  const files = listed.path.endsWith('.jsonl')
    ? [listed.path, `${listed.path}.meta`]
    : [join(listed.path, SESSION_FILES.log), join(listed.path, SESSION_FILES.manifest)];
  const facts: unknown[] = [
    RENDERER_VERSION,
    listed.path,
    listed.updatedAt,
    listed.title,
    listed.workspace,
    listed.status,
    listed.messages,
  ];
  for (const file of files) {
    const stats = await stat(file, { bigint: true }).catch(() => undefined);
    facts.push(stats ? [String(stats.size), String(stats.mtimeNs), String(stats.ino)] : null);
  }
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = name.replace(/\.html$/, `-${n}.html`);
  taken.add(candidate);
  return candidate;
}
