import type { Argv } from 'yargs';
import { inspectReport } from '../../session/inspect-report.js';
import { personView } from '../../session/views.js';
import { openSession } from '../../store/open-session.js';
import { formatInspect } from '../format-inspect.js';
import type { Output } from '../output.js';

interface InspectArgs {
  dir: string;
  json: boolean;
  messages: boolean;
}

export function inspectCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'inspect <dir>',
    describe: 'Verify one session directory and say what Reasonix would make of it',
    builder: (yargs: Argv) =>
      yargs
        .positional('dir', { type: 'string', demandOption: true, describe: 'a sessions-v4 or desktop-sessions-v5 session directory, or a .jsonl transcript' })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON object' })
        .option('messages', { type: 'boolean', default: false, describe: "print the person's view as JSONL" })
        .example('$0 inspect ~/.reasonix/projects/-home-me-app/sessions-v4/<id>', '')
        .epilogue('Exit 0: Reasonix would open the session (a torn tail included). 1: it would refuse it. 2: not a session, or a usage error.'),
    handler: async (args: InspectArgs) => {
      const session = await openSession(args.dir);
      // A summary needs no message text: it is read in memory that does not grow with the log.
      const read = await session.read({ retainContent: args.messages });
      const report = inspectReport(read, session.store);
      if (args.messages) {
        for (const message of personView(read.projection)) output.out(`${JSON.stringify(message)}\n`);
        // What precedes the damage was printed; the refusal is the one error line, and exit 1.
        if (read.refusal) throw read.refusal;
      } else if (args.json) {
        output.out(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        output.out(formatInspect(report));
      }
      setExit(report.status === 'damaged' || report.status === 'unsupported' ? 1 : 0);
    },
  };
}
