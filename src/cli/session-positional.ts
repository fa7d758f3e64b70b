import type { Argv } from 'yargs';
import { withRootOptions } from './root-options.js';

/** How every command describes the session it takes. */
export const SESSION_ARGUMENT_HELP =
  'a session: its id or the start of one (as `rxstore ls` shows it), a session directory, or a .jsonl transcript';

/** The session positional and the options that say where ids are looked up, as every command that takes a session has them. */
export function withSessionArgument<T>(yargs: Argv<T>, describe = SESSION_ARGUMENT_HELP) {
  return withRootOptions(yargs).positional('session', { type: 'string', demandOption: true, describe });
}
