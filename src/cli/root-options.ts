import type { Argv } from 'yargs';

/** Where to look: the Reasonix roots, as the commands that search them take them. */
export interface RootArgs {
  home?: string;
  stateHome?: string;
  cwd?: string;
}

export function withRootOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('home', { type: 'string', requiresArg: true, describe: 'the Reasonix home, as REASONIX_HOME would set it' })
    .option('state-home', {
      type: 'string',
      requiresArg: true,
      describe: 'the state root, as REASONIX_STATE_HOME would set it',
    })
    .option('cwd', {
      type: 'string',
      requiresArg: true,
      describe: 'the folder Reasonix would run from (default: the current one)',
    });
}
