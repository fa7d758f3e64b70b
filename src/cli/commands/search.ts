import type { ExitCode } from '../exit-codes.js';
import type { Argv } from 'yargs';
import { epilogueWithExitCodes, examples, withHelp } from '../help-text.js';
import type { Output } from '../output.js';
import { withRootOptions } from '../root-options.js';
import type { SearchArgs } from '../run/search.js';

/** The kinds of text `--kind` takes (the library checks them too). */
const KINDS = ['user', 'assistant', 'tool-input', 'tool-output', 'command', 'file'];

export function searchCommand(output: Output, setExit: (code: ExitCode) => void, showProgress: () => boolean) {
  return {
    command: 'search [query..]',
    describe: 'Find words, a phrase or a pattern in every session on this machine',
    builder: (yargs: Argv, helping?: boolean) => {
      const options = withRootOptions(yargs)
        .positional('query', {
          type: 'string',
          array: true,
          describe: 'words (all must match), "a quoted phrase", or with --regex a pattern',
        })
        .option('regex', {
          type: 'boolean',
          default: false,
          describe: 'the query is a regular expression (RE2 syntax: linear time, no backreferences)',
        })
        // One kind a flag (or a list with commas): a list that took every word after it would take the query's
        // words too (`--kind command migrate`), and the words after `--`.
        .option('kind', {
          type: 'string',
          array: true,
          nargs: 1,
          choices: KINDS,
          // What yargs gives for odd spellings (`--no-kind`, `--kind.x`) is left to the choices to refuse.
          coerce: (kinds: unknown) =>
            [kinds].flat().flatMap((kind) => (typeof kind === 'string' ? kind.split(',') : [kind])),
          describe: 'only this kind of text (repeat it, or list kinds with commas, for more)',
        })
        .option('tool', {
          type: 'string',
          requiresArg: true,
          describe: 'only calls, results, commands and files of this tool',
        })
        .option('file', {
          type: 'string',
          requiresArg: true,
          describe: 'only sessions that touched this file; with no query, where they touched it',
        })
        .option('workspace', { type: 'string', requiresArg: true, describe: 'only sessions of this workspace folder' })
        .option('session', {
          type: 'string',
          requiresArg: true,
          describe: 'only the session with this id, or ids starting with it',
        })
        .option('since', {
          type: 'string',
          requiresArg: true,
          describe:
            'only messages at or after this time (2026-05-01, or an ISO time): local time unless it ends in Z or an offset',
        })
        .option('until', { type: 'string', requiresArg: true, describe: 'only messages before this time' })
        .option('limit', { type: 'number', default: 20, requiresArg: true, describe: 'at most this many hits' })
        .option('around', {
          type: 'number',
          requiresArg: true,
          describe: 'show this many messages before and after each hit',
        })
        .option('json', { type: 'boolean', default: false, describe: 'one JSON hit per line, best first' })
        .option('index', {
          type: 'boolean',
          default: true,
          describe:
            'search through the index in the cache folder (kept up to date on each search); --no-index reads the stores directly',
        });
      return withHelp(helping, options, (options) =>
        options
          .example(
            examples(
              [
                '$0 search \'"connection refused"\'',
                "the exact phrase: its double quotes inside the shell's single ones",
              ],
              [
                '$0 search migrate --kind command --workspace .',
                "shell commands of this folder's sessions that mention migrate",
              ],
              ['$0 search --file src/main.ts', 'the sessions that touched a file'],
              ['$0 search --regex "TODO\\(\\w+\\)" --json', 'a pattern, one JSON hit per line'],
            ),
          )
          .epilogue(
            epilogueWithExitCodes(
              [
                '0  something was found',
                '1  nothing was found (a session read only up to damage is said on stderr)',
                '2  usage error: an empty query, an invalid --regex, a --session that is a path or that no session id starts with; or no session to search (none in the roots, none of --workspace)',
              ],
              'Searches what was said (prompts, answers), tool-call arguments and results, shell commands with their exit codes, and the files each turn touched, in every store, each conversation once as ls counts it. Case matters only when the query has a capital letter, or is a --regex that names a case (\\p{Lu}, [[:lower:]]); every character of the query is searched as typed.',
              'The index lives in the cache folder beside the summary cache, readable only by you; the first search builds it, later ones read only the sessions that changed. A session read up to damage is searched up to it, and its hits say so.',
            ),
          ),
      );
    },
    // What the command reads with is loaded only when it runs: `rxstore --help` and the other commands never load it.
    handler: async (args: SearchArgs) =>
      (await import('../run/search.js')).runSearch(args, output, setExit, showProgress()),
  };
}
