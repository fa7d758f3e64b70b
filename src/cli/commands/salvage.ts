import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import type { Output } from '../output.js';
import { withSessionArgument } from '../session-positional.js';
import type { SalvageArgs } from '../run/salvage.js';

export function salvageCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'salvage <session>',
    describe:
      'Write what can be read from a damaged session or JSONL transcript into a new one; the original is left untouched',
    builder: (yargs: Argv) =>
      withSessionArgument(
        yargs,
        'a (damaged) sessions-v4 session: its id or the start of one, or its directory; or a .jsonl transcript',
      )
        .option('to', {
          type: 'string',
          describe:
            'the sessions-v4 directory for the new session, or the folder for the new transcript: one that exists (default: beside the original)',
        })
        .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
        .example(
          examples(
            ['$0 salvage 15350df4 --dry-run', 'how much would be kept, writing nothing'],
            ['$0 salvage 15350df4', 'a new session beside the original, which is left as it is'],
          ),
        )
        .epilogue(epilogue()),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: SalvageArgs) => (await import('../run/salvage.js')).runSalvage(args, output, setExit),
  };
}
