import { familyOf, type RxErrorCode, type RxErrorFamily } from './codes.js';

/**
 * rxstore's coded errors (house style: isomorphic-git's one class per error with a stable `code` and
 * typed `data`). Each family mirrors one of Reasonix's own verdicts where it has one (docs/format.md §16), so
 * `--json` output, library callers and the human message carry the same facts. Every error rxstore
 * throws is an `RxError`; the classes live by family in this folder.
 */

/** Where in a store a problem was found, and what was expected there. */
export interface ErrorData {
  file?: string;
  offset?: number;
  commitId?: string;
  sequence?: number;
  eventId?: string;
  /** 1-based line of a line-oriented file (a JSONL transcript). */
  line?: number;
  expected?: string | number;
  found?: string | number;
  /** The message of the model view Reasonix names (the system message is message 0). */
  messageIndex?: number;
  /** The system's error code (`ENOENT`, `EACCES`, …) of a file-system error. */
  errno?: string;
}

/** The base of every error rxstore throws: a stable `code`, typed `data` (file, byte offset, batch, sequence, expected and found) and `toJSON()`. */
export abstract class RxError<Data extends ErrorData = ErrorData> extends Error {
  abstract readonly code: RxErrorCode;
  readonly data: Data;

  constructor(message: string, data: Data = {} as Data, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.data = data;
  }

  /** What kind of trouble this is: it decides the CLI's exit status and whether it is a session's verdict. */
  get family(): RxErrorFamily {
    return familyOf(this.code);
  }

  /** The message with where it happened, as the CLI prints it on one line. */
  describe(): string {
    const where = [this.data.file, this.data.offset === undefined ? undefined : `offset ${this.data.offset}`].filter(
      (part) => part !== undefined,
    );
    return where.length > 0 ? `${where.join(' at ')}: ${this.message}` : this.message;
  }

  toJSON(): { code: RxErrorCode; family: RxErrorFamily; message: string; data: Data } {
    return { code: this.code, family: this.family, message: this.message, data: this.data };
  }
}

/**
 * A session's verdict: damage or an unsupported version, which readers report as the session's
 * status instead of failing. Every other error (the file system, no zstd, a bug) is not about the
 * session and goes on up.
 */
export function isSessionVerdict(error: unknown): error is RxError {
  return error instanceof RxError && (error.family === 'damaged' || error.family === 'unsupported');
}
