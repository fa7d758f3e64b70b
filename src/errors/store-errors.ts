import type { CodeOf } from './codes.js';
import { RxError, type ErrorData } from './rx-error.js';

/** Reasonix: `damaged session store: …` — bytes that a writer never produces (exit 1). */
export class DamagedStoreError extends RxError {
  readonly code: CodeOf<'damaged'> = 'RX_DAMAGED_STORE';
}

/**
 * A log cut shorter than the bytes already read of it, while it was read (a repair, a copy put back):
 * what was read is not the log now. `offset` is where the log ends now.
 */
export class LogCutWhileReadError extends DamagedStoreError {}

/**
 * A batch read back (to check an operation id come again, or the one a worker decoded) is not the
 * bytes read the first time: the log was written over while it was read.
 */
export class BatchChangedError extends DamagedStoreError {
  constructor(file: string | undefined, offset: number) {
    super(`v4 batch at ${offset} changed while the log was read`, { file, offset });
  }
}

/** The log was replaced or written while salvage read it: what it read is not one log, and nothing is published. */
export class LogChangedWhileSalvagedError extends DamagedStoreError {
  constructor(file: string) {
    super('the log was written over while it was salvaged: salvage it again', { file });
  }
}

/**
 * Whether `error` is a log cut while it was read at or past `givenEnd`, the end of the last batch a
 * stream handed over: a torn tail cut by a repair (Reasonix's own, when it opens the session). Nothing
 * given is gone; the stream ends where the log now does.
 */
export function isCutAfter(error: unknown, givenEnd: number): boolean {
  return error instanceof LogCutWhileReadError && (error.data.offset ?? 0) >= givenEnd;
}

/** Reasonix: `unsupported session storage version: …` — a newer or unknown format (exit 1). */
export class UnsupportedVersionError extends RxError {
  readonly code: CodeOf<'unsupported'> = 'RX_UNSUPPORTED_VERSION';
}

/**
 * A payloadRef whose object or integrity index is missing or wrong. Reasonix reports this as a
 * damaged store (`read v4 event <id> payload: …`), so it is one.
 */
export class MissingContentError extends DamagedStoreError {
  override readonly code = 'RX_MISSING_CONTENT';
}

/**
 * A payloadRef whose object or integrity index is there but wrong: a size or digest that does not
 * match, an index that does not describe the object, something other than a regular file.
 * Reasonix refuses it as it refuses a missing one (`read v4 event <id> payload: …`).
 */
export class CorruptContentError extends DamagedStoreError {
  override readonly code = 'RX_CORRUPT_CONTENT';
}

/**
 * A payload Reasonix 1.38.11's decoder refuses although its batch verifies: Reasonix answers
 * `damaged session store: invalid <kind> payload at <sequence>` and opens nothing.
 */
export class StrictPayloadError extends DamagedStoreError {
  override readonly code = 'RX_STRICT_PAYLOAD';
}

/** Where Reasonix's JSONL loader stops reading a transcript: it is damaged there. */
export class TranscriptLineError extends DamagedStoreError {
  override readonly code = 'RX_JSONL_LINE';
}

/** A zstd frame that decodes to another length than its header declares (thrown by a zstd backend). */
export class ZstdSizeMismatch extends DamagedStoreError {
  override readonly code = 'RX_ZSTD_SIZE_MISMATCH';

  constructor(
    readonly decoded: number | 'more',
    readonly expected: number,
  ) {
    super(`decoded ${decoded === 'more' ? `more than ${expected}` : decoded} bytes, expected ${expected}`, {
      expected,
      found: decoded,
    });
  }
}

/** A damaged-store refusal found while reading metadata or replaying, carrying the problem's own code. */
export class RefusedAsDamagedError extends DamagedStoreError {
  override readonly code: CodeOf<'damaged'>;
  constructor(code: CodeOf<'damaged'>, message: string, data: ErrorData) {
    super(message, data);
    this.code = code;
  }
}
