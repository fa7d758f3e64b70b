/**
 * rxstore's coded errors. Each kind mirrors one of Reasonix's own verdicts (docs/format.md §16) so that
 * `--json` output, library callers and the human message all carry the same facts.
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
}

/** The base of every error rxstore throws: a stable `code`, typed `data` (file, byte offset, batch, sequence, expected and found) and `toJSON()`. */
export abstract class RxError extends Error {
  abstract readonly code: string;
  readonly data: ErrorData;

  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.data = data;
  }

  /** The message with where it happened, as the CLI prints it on one line. */
  describe(): string {
    const where = [
      this.data.file,
      this.data.offset === undefined ? undefined : `offset ${this.data.offset}`,
    ].filter((part) => part !== undefined);
    return where.length > 0 ? `${where.join(' at ')}: ${this.message}` : this.message;
  }

  toJSON(): { code: string; message: string; data: ErrorData } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Reasonix: `damaged session store: …` — bytes that a writer never produces. */
export class DamagedStoreError extends RxError {
  readonly code: string = 'RX_DAMAGED_STORE';
}

/** Reasonix: `unsupported session storage version: …` — a newer or unknown format. */
export class UnsupportedVersionError extends RxError {
  readonly code: string = 'RX_UNSUPPORTED_VERSION';
}

/**
 * A payloadRef whose object or integrity index is missing or wrong. Reasonix reports this as a
 * damaged store (`read v4 event <id> payload: …`), so it is one.
 */
export class MissingContentError extends DamagedStoreError {
  override readonly code: string = 'RX_MISSING_CONTENT';
}

/**
 * A payloadRef whose object or integrity index is there but wrong: a size or digest that does not
 * match, an index that does not describe the object, something other than a regular file.
 * Reasonix refuses it as it refuses a missing one (`read v4 event <id> payload: …`).
 */
export class CorruptContentError extends DamagedStoreError {
  override readonly code: string = 'RX_CORRUPT_CONTENT';
}

/** Reasonix: `session writer is owned by another runtime: <id>`. */
export class WriterOwnedError extends RxError {
  readonly code: string = 'RX_WRITER_OWNED';
}

/** A caller's mistake rather than a store's: a bad argument, a record that cannot be written. */
export class InvalidInputError extends RxError {
  readonly code: string = 'RX_INVALID_INPUT';
}
