import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import type { Output } from '../output.js';
import { withSessionArgument } from '../session-positional.js';
import type { RepairArgs } from '../run/repair.js';

export function repairCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'repair <session>',
    describe: "Cut a torn tail off a session's log as Reasonix would, keeping the cut bytes as evidence",
    builder: (yargs: Argv) =>
      withSessionArgument(yargs, 'a sessions-v4 session: its id or the start of one, or its directory')
        .option('dry-run', { type: 'boolean', default: false, describe: 'change nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
        .example(
          examples(
            ['$0 repair 15350df4 --dry-run', 'what would be cut, changing nothing'],
            ['$0 repair ~/backup/sessions-v4/15350df4…', 'a session by its directory'],
          ),
        )
        .epilogue(
          epilogue(
            "Only a torn tail is repaired in place, under Reasonix's own writer locks (refused while a Reasonix holds them). A damaged log is never edited (exit 1): use rxstore salvage.",
          ),
        ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: RepairArgs) => (await import('../run/repair.js')).runRepair(args, output, setExit),
  };
}
