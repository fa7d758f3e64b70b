import { RxError, type RxErrorFamily } from '../index.js';

/**
 * rxstore's exit codes, the same for every command: 0 done (the session opens), 1 the session
 * or the operation was refused or failed, 2 a usage error, a path that is not a session, or
 * nothing found. The one place they are decided.
 */
export const EXIT = {
  done: 0,
  refused: 1,
  usage: 2,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code of each family of errors (src/errors/codes.ts): a caller's mistake and "what was asked
 * for is not there or not understood" (no such session, an ambiguous prefix, not a session, a
 * zero-byte transcript, of which Reasonix says `no session matches`) exit 2; everything else 1.
 */
const EXIT_OF_FAMILY: Record<RxErrorFamily, ExitCode> = {
  input: EXIT.usage,
  lookup: EXIT.usage,
  damaged: EXIT.refused,
  unsupported: EXIT.refused,
  refused: EXIT.refused,
  environment: EXIT.refused,
  // A finding thrown only under `strict`: a warning made an error.
  finding: EXIT.refused,
};

/** The exit code an error ends rxstore with, from its code's family; an error that is not rxstore's exits 1. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof RxError ? EXIT_OF_FAMILY[error.family] : EXIT.refused;
}

export { EXIT_CODES_HELP } from './help-text.js';
