import { reasonixRefuses } from '../session/reading/read-session.js';
import { RxError, type RxErrorFamily } from '../errors/index.js';
import type { Severity } from '../errors/index.js';
import type { ListedStatus } from '../store/listing/summarise-copy.js';

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

/**
 * The exit code of an inspected session: 1 when Reasonix would refuse it, or when a problem or
 * finding is an error (under `--strict`, every warning is one); else 0.
 */
export function exitCodeOfFindings(status: ListedStatus, found: readonly { severity: Severity }[]): ExitCode {
  return exitCodeOfStatus(status) === EXIT.refused || found.some((each) => each.severity === 'error') ? EXIT.refused : EXIT.done;
}

/** A session Reasonix would refuse ends the command with 1; one it opens (a torn tail included) with 0. */
export function exitCodeOfStatus(status: ListedStatus): ExitCode {
  return reasonixRefuses(status) || status === 'unreadable' ? EXIT.refused : EXIT.done;
}

/** The table every command's help ends with, and the README repeats. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0  done; the session opens in Reasonix (a torn tail included)',
  '  1  the session or the operation was refused or failed (damaged, unsupported, locked, cannot write)',
  '  2  usage error, not a session, or nothing found (no such id, an ambiguous prefix, no sessions)',
].join('\n');
