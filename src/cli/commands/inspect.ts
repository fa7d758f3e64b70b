import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples, withHelp } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions } from '../root-options.js';
import { SESSION_ARGUMENT_HELP } from '../session-positional.js';
import type { InspectArgs } from '../run/inspect.js';

export function inspectCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'inspect <sessions..>',
    describe: 'Verify sessions and say what Reasonix would make of each',
    builder: (yargs: Argv, helping?: boolean) =>
      withHelp(
        helping,
        withRootOptions(yargs)
          .positional('sessions', {
            type: 'string',
            array: true,
            demandOption: true,
            describe: `one or more sessions, each ${SESSION_ARGUMENT_HELP}`,
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'print one JSON object (an array for several sessions)',
          })
          .option('messages', {
            type: 'boolean',
            default: false,
            describe: "print the person's view as JSONL (with --json: one object with the messages)",
          })
          .option('verbose', {
            type: 'boolean',
            default: false,
            describe: 'also show notes: caches Reasonix rebuilds by itself (offset index, storage identity)',
          })
          .option('strict', {
            type: 'boolean',
            default: false,
            describe:
              'every warning is an error: exit 1 when there is any (a torn tail, an interrupted turn, a dangling tool call, …)',
          }),
        (options) =>
          options
            .example(
              examples(
                ['$0 inspect 15350df4', 'a session by the start of its id, looked up as `rxstore ls` finds it'],
                [
                  '$0 inspect ~/.reasonix/projects/*/sessions-v4/*',
                  'every session of every workspace, one report each',
                ],
                ['$0 inspect old.jsonl --messages | head', 'what a person reads in a JSONL transcript'],
              ),
            )
            .epilogue(epilogue('Exit with several sessions: the worst of theirs (2 over 1 over 0).')),
      ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: InspectArgs) => (await import('../run/inspect.js')).runInspect(args, output, setExit),
  };
}
