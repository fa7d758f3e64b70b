import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { OverwriteRefusedError, type RxError } from '../errors/index.js';
import { writeStreamAtomic } from '../fs/atomic-stream.js';
import { OUTPUT_FILE_MODE } from '../fs/atomic-write.js';
import { checkFolder } from '../fs/path-kind.js';
import { readPathsOf } from '../store/jsonl/jsonl-sidecars.js';
import { listSessions } from '../store/listing/list-sessions.js';
import { resumeOfListed } from '../store/locate-session.js';
import type { OpenedSession } from '../store/open-session.js';
import type { ResumeContext } from '../store/resume/resume-verdict.js';
import type { Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';
import { checkPageFile } from './page-file.js';
import type { PageRenderer } from './page-renderer.js';
import { readSessionView, type ViewHeader } from './session-view.js';
import { writeSite, type SiteReport } from './write-site.js';

/** One session's page: written to a file, or handed back a piece at a time. */
export interface SessionPageOptions {
  session: OpenedSession;
  renderer: PageRenderer;
  /** Default `html`. */
  format?: 'html' | 'md';
  /** The file to write (atomically, refused where rxstore may not write); none: the pieces are handed back. */
  to?: string;
  /** `to` as the user gave it, for messages; default `to`. */
  given?: string;
  /** Write over a file rxstore did not write (never a symlink, a folder or a device). */
  force?: boolean;
  /**
   * The command that resumes the session, as `resumeOfCopy` gives it (null when none does). Without
   * it, the page guesses from the session alone.
   */
  resume?: string | null;
  platform?: Platform;
}

/** A site of every session under the roots: `index.html` and a page per session, in `site`. */
export interface SitePagesOptions {
  site: string;
  renderer: PageRenderer;
  /** Where the sessions are listed from; a site inside one of them is refused (it would be read as a session). */
  roots: readonly ReadRoot[];
  /** Where a resume command would be run from: each page's command is the one `locateSession` says. */
  resume: ResumeContext;
  /** `site` as the user gave it, for messages; default `site`. */
  given?: string;
  force?: boolean;
  now?: Date;
  /** A store the listing could not read (the site is written from the rest). */
  onWarning?: (warning: string) => void;
}

/** A page written to `file`, or its `pieces` to write; after them, why it stops early, if it does. */
export interface SessionPage {
  header: ViewHeader;
  file?: string;
  pieces?: AsyncIterable<string>;
  /** Once the page is written (or its pieces read): the error a reader meets where the session stops early. */
  stoppedBy(): RxError | undefined;
}

/**
 * Writes what a person reads of sessions, through `renderer`: one session's page (to a file, or
 * handed back), or a site of every session under some roots. The session is read in bounded
 * memory whatever its size; a file is written through a temporary file and a rename, and a file
 * or folder rxstore did not write is refused unless `force` (`OverwriteRefusedError`). A site
 * rewrites only the pages of sessions that changed, and removes those of sessions gone.
 * A session that is no session (an empty transcript) throws its lookup error; nothing found under
 * the roots throws `SessionNotFoundError` saying where it looked, and leaves the site as it is.
 */
export async function writePages(options: SessionPageOptions): Promise<SessionPage>;
export async function writePages(options: SitePagesOptions): Promise<SiteReport>;
export async function writePages(options: SessionPageOptions | SitePagesOptions): Promise<SessionPage | SiteReport> {
  return 'site' in options ? writeSitePages(options) : writeSessionPage(options);
}

async function writeSessionPage(options: SessionPageOptions): Promise<SessionPage> {
  const { session, renderer } = options;
  const given = options.given ?? options.to;
  // Said before the session is read: a folder, or a file rxstore did not write, is not written over.
  if (options.to !== undefined)
    await checkPageFile(options.to, given!, {
      force: options.force ?? false,
      reading: readPathsOf(session.path),
      marks: renderer.marks,
    });
  const view = await readSessionView(session, {
    ...(options.platform ? { platform: options.platform } : {}),
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
  });
  // Not a session at all (an empty transcript: Reasonix lists no such session): no page.
  if (view.refusal?.family === 'lookup') throw view.refusal;
  const markdown = options.format === 'md';
  const pieces = markdown ? renderer.markdown(view) : renderer.html(view);
  const page = { header: view.header, stoppedBy: () => view.stoppedWith() };
  if (options.to === undefined) return { ...page, pieces };
  // A Markdown file starts with the generator mark (an HTML page carries it in its head), so a re-run knows it for its own.
  await writeStreamAtomic(options.to, markdown ? marked(renderer.marks.markdown, pieces) : pieces, {
    mode: OUTPUT_FILE_MODE,
  });
  return { ...page, file: options.to };
}

async function* marked(mark: string, pieces: AsyncIterable<string>): AsyncGenerator<string> {
  yield mark;
  yield* pieces;
}

async function writeSitePages(options: SitePagesOptions): Promise<SiteReport> {
  const dir = resolve(options.site);
  const given = options.given ?? options.site;
  // Said before a session is listed: the site's folder may be made, but not the folders above it.
  await checkFolder(dir, given);
  await refuseInsideRoots(
    dir,
    given,
    options.roots.map((root) => root.path),
  );
  const { platform } = options.resume;
  const listing = await listSessions(options.roots, { platform });
  for (const warning of listing.warnings) options.onWarning?.(warning);
  // Nothing found (a typo in --home, say) leaves the site as it is: written from an empty listing,
  // it would lose the page of every session it holds.
  const first = await listing.sessions.next();
  if (first.done) throw await listing.nothingFound();
  const sessions = (async function* () {
    yield first.value;
    yield* listing.sessions;
  })();
  return writeSite(sessions, dir, {
    renderer: options.renderer,
    platform,
    resume: (listed) => resumeOfListed(listed, options.resume).command,
    ...(options.force !== undefined ? { force: options.force } : {}),
    ...(options.now ? { now: options.now } : {}),
    given,
  });
}

/**
 * Refuses a site folder inside a root rxstore reads sessions from (a state root, a store): its
 * pages and folders would be listed as sessions, damaged ones, and break the next read. Paths are
 * compared with their links resolved (of the site, the part that exists).
 */
async function refuseInsideRoots(dir: string, given: string, roots: readonly string[]): Promise<void> {
  const real = async (path: string): Promise<string> => {
    let rest = '';
    for (let at = path; ; at = dirname(at)) {
      const found = await realpath(at).catch(() => undefined);
      if (found !== undefined) return resolve(found, rest);
      if (dirname(at) === at) return path;
      rest = rest === '' ? relative(dirname(at), at) : `${relative(dirname(at), at)}/${rest}`;
    }
  };
  const site = await real(dir);
  for (const root of roots) {
    const inside = relative(await real(resolve(root)), site);
    if (inside === '' || (inside !== '..' && !inside.startsWith('../') && !isAbsolute(inside))) {
      throw new OverwriteRefusedError(
        `${given}: inside ${root}, where rxstore reads sessions from; a site there would be read as a session: name a folder outside it`,
        { file: given },
      );
    }
  }
}
