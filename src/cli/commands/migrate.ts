import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogue, examples } from '../help-text.js';
import { withRootOptions } from '../root-options.js';
import type { Output } from '../output.js';
import type { MigrateArgs } from '../run/migrate.js';

/** The migrations `rxstore migrate` runs, each a command of its own. */
const JSONL_TO_V4 = 'jsonl-to-v4';

export function migrateCommand(output: Output, setExit: (code: ExitCode) => void, isTty: () => boolean) {
  return {
    command: 'migrate',
    subcommands: [JSONL_TO_V4],
    describe: 'Migrate sessions between stores',
    builder: (yargs: Argv) =>
      yargs
        .command({
          command: `${JSONL_TO_V4} [path]`,
          describe:
            'Migrate JSONL transcripts into sessions-v4 where Reasonix would put them on resume: a transcript of a workspace’s store into that workspace’s sessions-v4, any other (the global sessions/ folder, a v0.x root, any path) into the store of --cwd. The sources are only read',
          builder: (sub: Argv) =>
            withRootOptions(sub)
              .positional('path', { type: 'string', describe: 'a .jsonl transcript, or a directory of them' })
              .option('all', {
                type: 'boolean',
                default: false,
                describe: 'every transcript under the Reasonix state root that has no sessions-v4 twin',
              })
              .option('to', {
                type: 'string',
                describe:
                  'the sessions-v4 directory to publish into, one that exists (default: where Reasonix would put it)',
              })
              .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; say what would be done' })
              .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
              .option('concurrency', {
                type: 'string',
                default: '4',
                describe: 'transcripts migrated at once (a positive integer)',
              })
              .example(
                examples(
                  [
                    '$0 migrate jsonl-to-v4 ~/.reasonix/sessions/notes.jsonl --cwd ~/src/app',
                    'into the store of ~/src/app; prints the command that resumes it',
                  ],
                  ['$0 migrate jsonl-to-v4 --all --dry-run', 'what --all would migrate'],
                ),
              )
              .epilogue(
                epilogue(
                  'Each transcript gets a line: the new session’s id and directory and the command that resumes it, or, for a failure, the file, the line and why. Exit 0 only when every transcript migrated (or already was); 1 when one or more failed; 2 for a path that is not a transcript.',
                ),
              ),
          // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
          handler: async (args: MigrateArgs) =>
            (await import('../run/migrate.js')).runMigrateJsonlToV4(args, output, setExit, isTty),
        })
        .demandCommand(1, `name a migration: ${JSONL_TO_V4}`)
        .epilogue(epilogue()),
    handler: () => undefined,
  };
}
