import { DamagedStoreError, RxError, UnsupportedVersionError } from './rx-error.js';

/** One thing wrong with (or worth knowing about) a session, as `inspect` prints it. */
export interface SessionProblem {
  code: string;
  /**
   * `error`: Reasonix would refuse the session. `warning`: it opens, but something is off.
   * `note`: a cache Reasonix rebuilds by itself is out of date (every copied or restored session
   * has one); worth knowing, never worth a warning.
   */
  severity: 'error' | 'warning' | 'note';
  message: string;
  file?: string;
  offset?: number;
  /** 1-based line, in a line-oriented file (a JSONL transcript). */
  line?: number;
}

export function problemFromError(error: RxError): SessionProblem {
  return {
    code: error.code,
    severity: 'error',
    message: error.message,
    ...(error.data.file !== undefined ? { file: error.data.file } : {}),
    ...(error.data.offset !== undefined ? { offset: error.data.offset } : {}),
    ...(error.data.line !== undefined ? { line: error.data.line } : {}),
  };
}

/**
 * The error a refused session's readers throw where they stop: the problem that made Reasonix
 * refuse it, with the same code, message and place that `read()` reports.
 */
export function errorFromProblem(problem: SessionProblem, verdict: 'damaged' | 'unsupported'): RxError {
  const data = {
    ...(problem.file !== undefined ? { file: problem.file } : {}),
    ...(problem.offset !== undefined ? { offset: problem.offset } : {}),
    ...(problem.line !== undefined ? { line: problem.line } : {}),
  };
  return verdict === 'unsupported' ? new RefusedAsUnsupportedError(problem.code, problem.message, data) : new RefusedAsDamagedError(problem.code, problem.message, data);
}

/** A damaged-store refusal found while replaying or reading metadata, carrying the problem's own code. */
class RefusedAsDamagedError extends DamagedStoreError {
  override readonly code: string;
  constructor(code: string, message: string, data: RxError['data']) {
    super(message, data);
    this.code = code;
  }
}

/** An unsupported-version refusal, carrying the problem's own code. */
class RefusedAsUnsupportedError extends UnsupportedVersionError {
  override readonly code: string;
  constructor(code: string, message: string, data: RxError['data']) {
    super(message, data);
    this.code = code;
  }
}
