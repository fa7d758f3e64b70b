import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import type { Output } from '../output.js';
import { epilogue, examples } from '../help-text.js';
import { withRootOptions } from '../root-options.js';
import { SESSION_ARGUMENT_HELP } from '../session-positional.js';
import type { ViewArgs } from '../run/view.js';

export function viewCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'view [session]',
    describe: 'Render a session as one self-contained HTML page or as Markdown; --all writes a site of every session',
    builder: (yargs: Argv) =>
      withRootOptions(yargs)
        .positional('session', { type: 'string', describe: SESSION_ARGUMENT_HELP })
        .option('to', {
          type: 'string',
          // Takes the next word even when it is `-`: standard output.
          requiresArg: true,
          describe: 'the file to write (- or absent: standard output); with --all, the site folder',
        })
        .option('format', {
          choices: ['html', 'md'] as const,
          describe: 'html (default, or from --to ending in .md) or md',
        })
        .option('all', {
          type: 'boolean',
          default: false,
          describe: 'every session on this machine: an index page and one page per session in --to',
        })
        .option('force', {
          type: 'boolean',
          default: false,
          describe:
            'write over a file or folder rxstore did not write (a page or site it wrote is rewritten without it); never a link, a FIFO or a device',
        })
        .example(
          examples(
            [
              '$0 view 15350df4 --to session.html',
              'one page, self-contained, to open in a browser or attach to a report',
            ],
            ['$0 view 15350df4 --format md | pbcopy', 'Markdown for an issue or a pull request'],
            ['$0 view --all --to ~/reasonix-history', 'a site of every session; a re-run rewrites only what changed'],
          ),
        )
        .epilogue(
          epilogue('A damaged session is shown up to the damage, with a banner saying where and why (exit 1).'),
        ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: ViewArgs) => (await import('../run/view.js')).runView(args, output, setExit),
  };
}
