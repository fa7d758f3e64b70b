import {
  inspectReport,
  type InspectReport,
  type SessionRead,
  openSession,
  type OpenedSession,
  UsageError,
  resolveSession,
  personView,
  sessionWorkspace,
} from '../../index.js';
import { jsonOutput } from '../json-output.js';
import { errorLines } from '../error-line.js';
import { exitCodeOfFindings } from '../exit-code-of-status.js';
import { EXIT, exitCodeOf, type ExitCode } from '../exit-codes.js';
import { formatInspect } from '../format-inspect.js';
import type { Output } from '../output.js';
import type { RootArgs } from '../root-options.js';

/** What `rxstore inspect` is run with: the options inspect.ts declares, as yargs gives them. */
export interface InspectArgs extends RootArgs {
  sessions: string[];
  json: boolean;
  messages: boolean;
  verbose: boolean;
  strict: boolean;
}

/** One session named on the command line, opened and read (or why it could not be). */
type Inspected = { session: OpenedSession; read: SessionRead; report: InspectReport } | { error: unknown };

/** `rxstore inspect`, run: the command's options are in inspect.ts. */
export async function runInspect(args: InspectArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  if (args.messages && !args.json && args.sessions.length > 1) {
    throw new UsageError('--messages prints one session as JSONL; name one session, or add --json for several');
  }
  let worst: ExitCode = EXIT.done;
  let shown = 0;
  const objects: unknown[] = [];
  // Each session is printed as soon as it is read: several never sit in memory at once.
  for (const arg of args.sessions) {
    const item = await inspectOne(arg, args);
    if ('error' in item) {
      output.err(errorLines(item.error));
      worst = Math.max(worst, exitCodeOf(item.error)) as ExitCode;
      continue;
    }
    worst = Math.max(
      worst,
      exitCodeOfFindings(item.report.status, [...item.report.problems, ...item.report.hygiene.findings]),
    ) as ExitCode;
    if (args.messages) {
      const messages = personView(item.read.projection);
      if (args.json) objects.push({ id: item.report.id, path: item.report.path, status: item.report.status, messages });
      else {
        for (const message of messages) output.out(`${jsonOutput(message)}\n`);
        // What precedes the damage was printed; the refusal is the one error line.
        if (item.read.refusal) output.err(errorLines(item.read.refusal));
      }
    } else if (args.json) objects.push(item.report);
    else output.out(`${shown > 0 ? '\n' : ''}${formatInspect(item.report, { verbose: args.verbose })}`);
    shown += 1;
  }
  if (args.json) output.out(`${jsonOutput(args.sessions.length > 1 ? objects : objects[0], 2)}\n`);
  setExit(worst);
}

async function inspectOne(arg: string, args: InspectArgs): Promise<Inspected> {
  try {
    const session = await openSession(await resolveSession(arg, args));
    // A summary needs no message text (but the start of what the person typed, for its title): it is read in memory that does not grow with the log.
    const read = await session.read(args.messages ? { keep: 'whole' } : { keep: 'index', previews: true });
    const report = inspectReport(read, session.store, { strict: args.strict });
    // A relocated session is named by the folder it is resumed from, as `ls` names it.
    return { session, read, report: { ...report, workspace: await sessionWorkspace(session.path, report.workspace) } };
  } catch (error) {
    // One session that cannot be found or read never hides the reports of the others.
    if (args.sessions.length === 1) throw error;
    return { error };
  }
}
