import type { ExitCode } from '../exit-codes.js';
import { defaultCacheDir, STORES_NEWEST_FIRST } from '../../index.js';
import type { Argv } from 'yargs';
import { epilogue, examples, withHelp } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions } from '../root-options.js';
import type { LsArgs } from '../run/ls.js';

export function lsCommand(output: Output, setExit: (code: ExitCode) => void) {
  return {
    command: 'ls',
    describe: 'List every Reasonix session on this machine, each conversation once, newest first',
    builder: (yargs: Argv, helping?: boolean) =>
      withHelp(
        helping,
        withRootOptions(yargs)
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'print a JSON array (ids, paths and times whole; updatedAt as inspect --json has it)',
          })
          .option('verify', {
            type: 'boolean',
            default: false,
            describe: 'verify every session fully, caches included (slower)',
          })
          .option('cache', {
            type: 'boolean',
            default: true,
            describe: `keep what each session's files said in the summary cache (${defaultCacheDir()}), and read again only the sessions whose files changed; --no-cache reads every log and writes no cache`,
          })
          .option('utc', {
            type: 'boolean',
            default: false,
            describe: 'show times in UTC rather than the local time zone',
          })
          .option('workspace', { type: 'string', describe: 'only sessions of this workspace folder' })
          .option('store', {
            type: 'string',
            array: true,
            choices: STORES_NEWEST_FIRST,
            describe: 'read only these stores',
          }),
        (options) =>
          options
            .example(
              examples(
                ['$0 ls', 'every session, newest first, fitted to the terminal'],
                ['$0 ls --workspace . --utc', "this folder's sessions, times in UTC"],
                ['$0 ls --home /backup/reasonix --json', 'the sessions of another Reasonix home, as JSON'],
              ),
            )
            .epilogue(
              epilogue(
                'UPDATED is when the session last committed an event (not when its files were copied), with its offset from UTC. ' +
                  'MSGS counts the messages a person sees. On a terminal rows are cut to its width (title and workspace with …; on a narrow one, columns are left out before the title is cut to nothing); in a pipe they are whole.',
                'Reads every state root (Reasonix 1.x and 2.x rules) and the legacy roots; RXSTORE_ROOT names one state root or store directory to read instead.',
                'Exit 0 when sessions are listed (with --verify: 1 when Reasonix would refuse one); 2 when none is found.',
              ),
            ),
      ),
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: LsArgs) => (await import('../run/ls.js')).runLs(args, output, setExit),
  };
}
