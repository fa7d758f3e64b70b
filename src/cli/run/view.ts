import { resolve } from 'node:path';
import { pageRenderer } from '../../view/index.js';
import { printPieces, type Output } from '../output.js';
import { cutLongWords, errorLines, warningLine } from '../error-line.js';
import {
  printable,
  UsageError,
  machineRoots,
  openSession,
  resolveSession,
  resumeOfCopy,
  writePages,
  SessionNotFoundError,
} from '../../index.js';
import type { RootArgs } from '../root-options.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
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
    const { roots, resume } = await machineRoots(args);
    let report;
    try {
      report = await writePages({
        site: resolve(args.to),
        given: args.to,
        renderer: pageRenderer,
        roots: roots.roots,
        resume,
        force: args.force,
        onWarning: (warning) => output.err(warningLine(warning)),
      });
    } catch (error) {
      // Nothing found (a typo in --home, say) is said as ls says it, and the site is left as it is.
      if (!(error instanceof SessionNotFoundError)) throw error;
      output.err(errorLines(error));
      setExit(EXIT.usage);
      return;
    }
    // Each as every other command says a refusal: its code, then what and where (the session's path once).
    for (const damaged of report.damaged)
      output.err(`${cutLongWords(`rxstore: ${printable(withPath(damaged.problem, damaged.path))}`)}\n`);
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
  const session = await openSession(await resolveSession(args.session, args));
  const toFile = args.to && args.to !== '-' ? resolve(args.to) : undefined;
  const format = args.format ?? (args.to?.toLowerCase().endsWith('.md') ? 'md' : 'html');
  const page = await writePages({
    session,
    renderer: pageRenderer,
    format,
    ...(toFile ? { to: toFile, given: args.to! } : {}),
    force: args.force,
    resume: await resumeAsWhereSays(session.id, session.path, args),
  });
  if (page.pieces) await printPieces(page.pieces, output);
  // Said as export says it: a file written is confirmed, with what it holds.
  else
    output.out(
      `${printable(`wrote ${page.file}: ${format === 'md' ? 'Markdown' : 'an HTML page'} of ${counted(page.header.counts.messages, 'message')}`)}\n`,
    );
  const stopped = page.stoppedBy();
  // The same one line as every other command's refusal: `rxstore: <CODE>: <path> at offset <n>: <what>`.
  if (stopped) output.err(errorLines(stopped));
  setExit(stopped ? EXIT.refused : EXIT.done);
}

/** A problem (`<CODE>: <what>`) that names the session's path, or with the path put after its code. */
function withPath(problem: string, path: string): string {
  if (problem.includes(path)) return problem;
  const code = /^RX_[A-Z_]+: /.exec(problem)?.[0] ?? '';
  return `${code}${path}: ${problem.slice(code.length)}`;
}

/**
 * The command `rxstore where` prints for the session (the folder and the Reasonix home it needs);
 * undefined for a session no store lists, where the page guesses from the session alone.
 */
async function resumeAsWhereSays(id: string, path: string, args: RootArgs): Promise<string | null | undefined> {
  const { roots, resume } = await machineRoots(args);
  return resumeOfCopy(path, id, resume, roots.roots);
}
