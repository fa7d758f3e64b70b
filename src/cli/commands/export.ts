import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import type { Output } from '../output.js';
import { withSessionArgument } from '../session-positional.js';
import type { ExportArgs } from '../run/export.js';

export function exportCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'export <session>',
    describe: 'Write a session out as a JSONL transcript (+ .jsonl.meta) or one JSON document',
    builder: (yargs: Argv) =>
      withSessionArgument(yargs)
        .option('to', {
          type: 'string',
          demandOption: true,
          // Takes the next word even when it is `-`: standard output.
          requiresArg: true,
          describe:
            'the file to write (a file already there is not written over without --force), or - for standard output (JSONL: the transcript lines, without a .jsonl.meta)',
        })
        .option('format', {
          choices: ['jsonl', 'json'] as const,
          default: 'jsonl' as const,
          describe: 'a JSONL transcript Reasonix resumes, or one JSON document',
        })
        .option('view', {
          choices: ['canonical', 'person'] as const,
          default: 'canonical' as const,
          describe: 'every message, or what a person reads',
        })
        .option('force', {
          type: 'boolean',
          default: false,
          describe:
            'write over regular files already there (export writes no mark of its own in a transcript, so it cannot tell its own); never a link, a FIFO or a device',
        })
        .example(
          examples(
            [
              '$0 export 15350df4 --to session.jsonl',
              'a transcript (+ session.jsonl.meta) that `reasonix --resume session.jsonl` opens',
            ],
            [
              '$0 export 15350df4 --to - --format json --view person | jq .messages',
              'one JSON document on standard output',
            ],
          ),
        )
        .epilogue(
          epilogue(
            'A session Reasonix would refuse is not exported (exit 1): rxstore salvage recovers what can be read.',
          ),
        ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: ExportArgs) => (await import('../run/export.js')).runExport(args, output, setExit),
  };
}
