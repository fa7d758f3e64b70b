import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { errorFromProblem } from '../../errors/index.js';
import { writeStreamAtomic } from '../../fs/atomic-stream.js';
import { OUTPUT_FILE_MODE } from '../../fs/atomic-write.js';
import { checkFolder } from '../../fs/path-kind.js';
import { readPathsOf } from '../../store/jsonl/jsonl-sidecars.js';
import { resumeOfListed } from '../../store/locate-session.js';
import {
  checkPageFile,
  MARKDOWN_GENERATOR_MARK,
  readSessionView,
  renderHtml,
  renderMarkdown,
  writeSite,
} from '../../view/index.js';
import { processOutput, writeStdout, type Output } from '../output.js';
import { cutLongWords, errorLines, warningLine } from '../error-line.js';
import {
  printable,
  OverwriteRefusedError,
  UsageError,
  listSessions,
  machineRoots,
  openSession,
  resumeOfCopy,
} from '../../index.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument } from '../session-argument.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { noSessionsFound } from './ls.js';
import { counted } from '../plural.js';

/** What `rxstore view` is run with: the options view.ts declares, as yargs gives them. */
export interface ViewArgs extends RootArgs {
  session?: string;
  to?: string;
  format?: 'html' | 'md';
  all: boolean;
  force: boolean;
}

/** `rxstore view`, run: the command's options are in view.ts. */
export async function runView(args: ViewArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  if (args.all) {
    if (args.session !== undefined)
      throw new UsageError('view --all takes no session: it renders every session on this machine');
    if (!args.to || args.to === '-') throw new UsageError('view --all writes a folder: name it with --to DIR');
    if (args.format === 'md') throw new UsageError('view --all writes HTML pages; --format md is for one session');
    // Said before a session is listed: the site's folder may be made, but not the folders above it.
    await checkFolder(resolve(args.to), args.to);
    const { inputs, roots } = await machineRoots(args);
    await refuseInsideRoots(
      resolve(args.to),
      args.to,
      roots.roots.map((root) => root.path),
    );
    const listing = await listSessions(roots.roots, { platform: inputs.platform });
    for (const warning of listing.warnings) output.err(warningLine(warning));
    const context = {
      platform: inputs.platform,
      cwd: inputs.cwd,
      reasonixStateRoot: roots.reasonixStateRoot,
      pinned: roots.pinned,
    };
    // Nothing found (a typo in --home, say) is said as ls says it, and the site is left as it is: written
    // from an empty listing, it would lose the page of every session it holds.
    const first = await listing.sessions.next();
    if (first.done) {
      output.err(await noSessionsFound(roots.roots));
      setExit(EXIT.usage);
      return;
    }
    const sessions = (async function* () {
      yield first.value;
      yield* listing.sessions;
    })();
    const report = await writeSite(sessions, resolve(args.to), {
      platform: inputs.platform,
      resume: (listed) => resumeOfListed(listed, context).command,
      force: args.force,
      given: args.to,
    });
    for (const damaged of report.damaged)
      output.err(`${cutLongWords(`rxstore: ${printable(damaged.id)}: ${printable(damaged.problem)}`)}\n`);
    output.out(
      `${printable(report.index)}: ${counted(report.sessions, 'session')}, ${counted(report.written, 'page')} written, ${report.unchanged} unchanged, ${report.removed} removed\n`,
    );
    setExit(report.damaged.length > 0 ? EXIT.refused : EXIT.done);
    return;
  }
  if (args.session === undefined)
    throw new UsageError(
      'name a session: its id or the start of one, a session directory, or a .jsonl transcript; or use --all --to DIR',
    );
  const session = await openSession(await resolveSessionArgument(args.session, args));
  const toFile = args.to && args.to !== '-' ? resolve(args.to) : undefined;
  // Said before the session is read: a folder, or a file rxstore did not write, is not written over.
  if (toFile) await checkPageFile(toFile, args.to!, { force: args.force, reading: readPathsOf(session.path) });
  const format = args.format ?? (args.to?.toLowerCase().endsWith('.md') ? 'md' : 'html');
  const view = await readSessionView(session, { resume: await resumeAsWhereSays(session.id, session.path, args) });
  // Not a session at all (an empty transcript: Reasonix lists no such session): no page, the
  // one error line and exit 2, as every other command that reads it says.
  if (view.refusal?.family === 'lookup') throw view.refusal;
  const pieces = format === 'md' ? renderMarkdown(view) : renderHtml(view);
  // A Markdown file starts with the generator mark (an HTML page carries it in its head), so a re-run knows it for its own.
  if (toFile) {
    await writeStreamAtomic(toFile, format === 'md' ? markedMarkdown(pieces) : pieces, { mode: OUTPUT_FILE_MODE });
    // Said as export says it: a file written is confirmed, with what it holds.
    output.out(
      `${printable(`wrote ${toFile}: ${format === 'md' ? 'Markdown' : 'an HTML page'} of ${counted(view.header.counts.messages, 'message')}`)}\n`,
    );
  } else await writeToOutput(pieces, output);
  const stopped = view.stoppedBy();
  // The same one line as every other command's refusal: `rxstore: <CODE>: <path> at offset <n>: <what>`.
  if (stopped) output.err(errorLines(errorFromProblem(stopped)));
  setExit(stopped ? EXIT.refused : EXIT.done);
}

async function* markedMarkdown(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  yield MARKDOWN_GENERATOR_MARK;
  yield* pieces;
}

/** Standard output is written as fast as it is read (a page of a large session is never held whole). */
async function writeToOutput(pieces: AsyncIterable<string>, output: Output): Promise<void> {
  for await (const piece of pieces) {
    if (output !== processOutput) output.out(piece);
    else await writeStdout(piece);
  }
}

/**
 * The command `rxstore where` prints for the session (the folder and the Reasonix home it needs);
 * undefined for a session no store lists, where the page guesses from the session alone.
 */
async function resumeAsWhereSays(id: string, path: string, args: RootArgs): Promise<string | null | undefined> {
  const { inputs, roots } = await machineRoots(args);
  const context = {
    platform: inputs.platform,
    cwd: inputs.cwd,
    reasonixStateRoot: roots.reasonixStateRoot,
    pinned: roots.pinned,
  };
  return resumeOfCopy(path, id, context, roots.roots);
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
