import { reasonixRefuses } from '../session/reading/read-session.js';
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

/** Error codes that mean "what was asked for is not there or not understood": exit 2. Every other error exits 1. */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'RX_USAGE',
  'RX_NOT_A_SESSION',
  'RX_SESSION_NOT_FOUND',
  'RX_AMBIGUOUS_SESSION',
  // A zero-byte transcript: Reasonix answers `no session matches`.
  'RX_JSONL_EMPTY',
]);

/** The exit code an error ends rxstore with, from its code. */
export function exitCodeOf(error: unknown): ExitCode {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && USAGE_CODES.has(code) ? EXIT.usage : EXIT.refused;
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
