import { reasonixRefuses, type Severity, type ListedStatus } from '../index.js';
import { EXIT, type ExitCode } from './exit-codes.js';

// Apart from exit-codes.ts: deciding by a session's status loads the reader, which a usage error or --help never needs.

/**
 * The exit code of an inspected session: 1 when Reasonix would refuse it, or when a problem or
 * finding is an error (under `--strict`, every warning is one); else 0.
 */
export function exitCodeOfFindings(status: ListedStatus, found: readonly { severity: Severity }[]): ExitCode {
  return exitCodeOfStatus(status) === EXIT.refused || found.some((each) => each.severity === 'error')
    ? EXIT.refused
    : EXIT.done;
}

/** A session Reasonix would refuse ends the command with 1; one it opens (a torn tail included) with 0. */
export function exitCodeOfStatus(status: ListedStatus): ExitCode {
  return reasonixRefuses(status) || status === 'unreadable' ? EXIT.refused : EXIT.done;
}
