import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples, withHelp } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions } from '../root-options.js';
import type { WhereArgs } from '../run/where.js';

export function whereCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'where <id>',
    describe: 'Where each copy of a session lives, and the command that resumes it',
    builder: (yargs: Argv, helping?: boolean) =>
      withHelp(
        helping,
        withRootOptions(yargs)
          .positional('id', {
            type: 'string',
            demandOption: true,
            describe: 'a session id or the start of one (a JSONL transcript’s name without .jsonl counts)',
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'print a JSON array, one entry per matching session',
          }),
        (options) =>
          options
            .example(
              examples(
                ['$0 where 166cabf3', 'its copies, and whether `reasonix --resume` finds it from here'],
                ['$0 where 166cabf3 --cwd ~/src/app', 'would `reasonix --resume` find it from ~/src/app?'],
                [
                  '$0 where 166cabf3 --home /backup/reasonix',
                  'in another Reasonix home: the printed command sets REASONIX_HOME',
                ],
              ),
            )
            .epilogue(
              epilogue(
                'Every printed command works as printed: it changes to the folder Reasonix must run from, and carries REASONIX_HOME / REASONIX_STATE_HOME when --home, --state-home or the environment set them.',
                'Exit 0 when a session matches, resumable or not; every session the prefix matches is shown.',
              ),
            ),
      ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: WhereArgs) => (await import('../run/where.js')).runWhere(args, output, setExit),
  };
}
