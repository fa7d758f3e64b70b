import { RxError } from '../codec/errors.js';

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
