import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import type { Output } from '../output.js';
import { withSessionArgument } from '../session-positional.js';
import type { CatArgs } from '../run/cat.js';

export function catCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'cat <session>',
    describe: "Print a session's person's view, or its index records, as JSONL",
    builder: (yargs: Argv) =>
      withSessionArgument(yargs)
        .option('records', {
          type: 'boolean',
          default: false,
          describe: 'print indexer records: messages, shell commands, files touched',
        })
        .option('cursor', {
          type: 'string',
          requiresArg: true,
          describe:
            'with --records: print only what was committed since the cursor kept in this file (everything when it does not exist), then replace the file with the cursor after it (if that fails, the records printed come again on the next run: apply each by its key, which replaces the record of the same key)',
        })
        .example(
          examples(
            ['$0 cat 15350df4', 'what a person reads, one JSON message a line'],
            ["$0 cat 15350df4 --records | jq -r '.command // empty'", 'the shell commands the session ran'],
            ['$0 cat ~/.reasonix/sessions/notes.jsonl', 'a JSONL transcript'],
            [
              '$0 cat 15350df4 --records --cursor 15350df4.cursor >> index.jsonl',
              'only the records committed since the last run',
            ],
          ),
        )
        .epilogue(epilogue()),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: CatArgs) => (await import('../run/cat.js')).runCat(args, output, setExit),
  };
}
