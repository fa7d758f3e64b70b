import { familyOf, type RxErrorCode } from './codes.js';
import type { ErrorData, RxError } from './rx-error.js';
import { RefusedAsDamagedError, UnsupportedVersionError } from './store-errors.js';

/**
 * `error`: Reasonix would refuse the session (or, under `strict`, a warning). `warning`: it opens,
 * but something is off. `note`: a cache Reasonix rebuilds by itself is out of date (every copied or
 * restored session has one); worth knowing, never worth a warning.
 */
export type Severity = 'error' | 'warning' | 'note';

/**
 * One thing wrong with (or worth knowing about) a session: the same code, message and data a thrown
 * `RxError` carries, with how much it matters (node-tar's coded warnings, which `strict` makes errors).
 */
export interface Problem<Data extends ErrorData = ErrorData> {
  code: RxErrorCode;
  severity: Severity;
  message: string;
  data: Data;
}

export function problemFromError(error: RxError): Problem {
  return { code: error.code, severity: 'error', message: error.message, data: error.data };
}

/**
 * The error a refused session's readers throw where they stop: the problem that made Reasonix
 * refuse it, with the same code, message and place that `read()` reports.
 */
export function errorFromProblem(problem: Problem): RxError {
  const family = familyOf(problem.code);
  if (family === 'unsupported') return new UnsupportedVersionError(problem.message, problem.data);
  return new RefusedAsDamagedError(
    family === 'damaged' ? (problem.code as RefusedAsDamagedError['code']) : 'RX_DAMAGED_STORE',
    problem.message,
    problem.data,
  );
}

/** Under `strict`, every warning is an error (node-tar's `strict`); notes stay notes. */
export function promoteWarnings<Found extends { severity: Severity }>(
  found: Found[],
  strict: boolean | undefined,
): Found[] {
  return strict ? found.map((each) => (each.severity === 'warning' ? { ...each, severity: 'error' } : each)) : found;
}
