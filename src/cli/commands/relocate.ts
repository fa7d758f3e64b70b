import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions } from '../root-options.js';
import type { RelocateArgs } from '../run/relocate.js';

export function relocateCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'relocate <old> <new>',
    describe: 'Move the sessions of a project folder that moved, so `reasonix --resume` finds them from its new place',
    builder: (yargs: Argv) =>
      withRootOptions(yargs)
        .positional('old', {
          type: 'string',
          demandOption: true,
          describe: 'the folder the project was in (usually gone now)',
        })
        .positional('new', {
          type: 'string',
          demandOption: true,
          describe: 'the folder the project is in now (it must exist)',
        })
        .option('session', {
          type: 'string',
          requiresArg: true,
          describe: 'move this session only (its id or the start of one)',
        })
        .option('dry-run', { type: 'boolean', default: false, describe: 'print the plan; change nothing' })
        .option('keep', { type: 'boolean', default: false, describe: 'leave the old copies where they are' })
        .option('force', {
          type: 'boolean',
          default: false,
          describe: 'move although the old folder still exists, or another folder shares its slug',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print the plan (and what was done) as JSON' })
        .example(
          examples(
            [
              '$0 relocate ~/src/app ~/work/app',
              'after `mv ~/src/app ~/work/app`: every session of the project goes on from ~/work/app',
            ],
            ['$0 relocate ~/src/app ~/work/app --dry-run', 'what would move, changing nothing'],
          ),
        )
        .epilogue(
          epilogue(
            'Each session is moved whole (renamed within the state root, its content objects linked first) and its recorded workspace pointed at the new folder; the messages themselves are never rewritten.',
            'Refused before anything moves (exit 1): a session open in a running Reasonix, an id in both workspaces, the old folder still there or another folder with its slug (unless --force). A run that stopped part way is finished by running it again.',
          ),
        ),
    // What the command moves with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: RelocateArgs) => (await import('../run/relocate.js')).runRelocate(args, output, setExit),
  };
}
