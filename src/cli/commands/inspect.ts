import type { Argv } from 'yargs';
import { inspectReport, type InspectReport } from '../../session/replay/inspect-report.js';
import type { SessionRead } from '../../session/reading/read-session.js';
import { personView } from '../../session/replay/views.js';
import { openSession, type OpenedSession } from '../../store/open-session.js';
import { errorLines } from '../error-line.js';
import { EXIT, exitCodeOf, exitCodeOfFindings } from '../exit-codes.js';
import { formatInspect } from '../format-inspect.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions, type RootArgs } from '../root-options.js';
import { resolveSessionArgument, SESSION_ARGUMENT_HELP } from '../session-argument.js';
import { UsageError } from '../../errors/index.js';

interface InspectArgs extends RootArgs {
  sessions: string[];
  json: boolean;
  messages: boolean;
  verbose: boolean;
  strict: boolean;
}

/** One session named on the command line, opened and read (or why it could not be). */
type Inspected = { session: OpenedSession; read: SessionRead; report: InspectReport } | { error: unknown };

export function inspectCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'inspect <sessions..>',
    describe: 'Verify sessions and say what Reasonix would make of each',
    builder: (yargs: Argv) =>
      withRootOptions(yargs)
        .positional('sessions', { type: 'string', array: true, demandOption: true, describe: `one or more sessions, each ${SESSION_ARGUMENT_HELP}` })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON object (an array for several sessions)' })
        .option('messages', { type: 'boolean', default: false, describe: "print the person's view as JSONL (with --json: one object with the messages)" })
        .option('verbose', { type: 'boolean', default: false, describe: 'also show notes: caches Reasonix rebuilds by itself (offset index, storage identity)' })
        .option('strict', { type: 'boolean', default: false, describe: 'every warning is an error: exit 1 when there is any (a torn tail, an interrupted turn, a dangling tool call, …)' })
        .example('$0 inspect 15350df4', 'a session by the start of its id, looked up as `rxstore ls` finds it')
        .example('$0 inspect ~/.reasonix/projects/*/sessions-v4/*/', 'every session of every workspace, one report each')
        .example('$0 inspect old.jsonl --messages | head', 'what a person reads in a JSONL transcript')
        .epilogue(epilogue('Exit with several sessions: the worst of theirs (2 over 1 over 0).')),
    handler: async (args: InspectArgs) => {
      if (args.messages && !args.json && args.sessions.length > 1) {
        throw new UsageError('--messages prints one session as JSONL; name one session, or add --json for several');
      }
      let worst: number = EXIT.done;
      let shown = 0;
      const objects: unknown[] = [];
      // Each session is printed as soon as it is read: several never sit in memory at once.
      for (const arg of args.sessions) {
        const item = await inspectOne(arg, args);
        if ('error' in item) {
          output.err(errorLines(item.error));
          worst = Math.max(worst, exitCodeOf(item.error));
          continue;
        }
        worst = Math.max(worst, exitCodeOfFindings(item.report.status, [...item.report.problems, ...item.report.hygiene.findings]));
        if (args.messages) {
          const messages = personView(item.read.projection);
          if (args.json) objects.push({ id: item.report.id, path: item.report.path, status: item.report.status, messages });
          else {
            for (const message of messages) output.out(`${JSON.stringify(message)}\n`);
            // What precedes the damage was printed; the refusal is the one error line.
            if (item.read.refusal) output.err(errorLines(item.read.refusal));
          }
        } else if (args.json) objects.push(item.report);
        else output.out(`${shown > 0 ? '\n' : ''}${formatInspect(item.report, { verbose: args.verbose })}`);
        shown += 1;
      }
      if (args.json) output.out(`${JSON.stringify(args.sessions.length > 1 ? objects : objects[0], null, 2)}\n`);
      setExit(worst);
    },
  };
}

async function inspectOne(arg: string, args: InspectArgs): Promise<Inspected> {
  try {
    const session = await openSession(await resolveSessionArgument(arg, args));
    // A summary needs no message text: it is read in memory that does not grow with the log.
    const read = await session.read({ keep: args.messages ? 'whole' : 'index' });
    return { session, read, report: inspectReport(read, session.store, { strict: args.strict }) };
  } catch (error) {
    // One session that cannot be found or read never hides the reports of the others.
    if (args.sessions.length === 1) throw error;
    return { error };
  }
}
