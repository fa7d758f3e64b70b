import type { CodeOf } from './codes.js';
import { RxError, type ErrorData } from './rx-error.js';

/** An operation rxstore will not do, and says why (exit 1). */
export abstract class RefusedError<Data extends ErrorData = ErrorData> extends RxError<Data> {
  abstract override readonly code: CodeOf<'refused'>;
}

/** Reasonix: `session writer is owned by another runtime: <id>` — its writer lock is held. */
export class WriterOwnedError extends RefusedError {
  override readonly code = 'RX_WRITER_OWNED';
}

/** The session directory is already there: rxstore never writes over a session. */
export class SessionExistsError extends RefusedError {
  override readonly code = 'RX_SESSION_EXISTS';
}

/** A batch the writer will not write: Reasonix 1.38.11 would refuse the session holding it. */
export class RefusedBatchError extends RefusedError {
  override readonly code = 'RX_WRITE_REFUSED';
}

/** An export that would write what Reasonix cannot resume, or of a session Reasonix refuses. */
export class ExportRefusedError extends RefusedError {
  override readonly code = 'RX_EXPORT_REFUSED';
}

/** A session Reasonix opens but takes no new turn in: its transcript gate refuses the model view (`data.messageIndex` is the message it names). */
export class TurnRefusedError extends RefusedError {
  override readonly code = 'RX_TURN_REFUSED';
}

/** A transcript that cannot become a session Reasonix would resume; nothing is written. */
export class MigrationRefusedError extends RefusedError {
  override readonly code = 'RX_MIGRATION_REFUSED';
}

/**
 * A transcript, sidecar or lock file that is a FIFO, a socket, a device or a directory: reading it
 * may never end (Reasonix 1.38.11 resuming a transcript with a FIFO sidecar waits forever), so it is
 * refused before a byte is read.
 */
export class NotRegularFileError extends RefusedError {
  override readonly code = 'RX_NOT_REGULAR_FILE';
}

/** The log under a cursor is not the log the cursor was taken from, or the cursor is not one rxstore made. */
export class CursorMismatchError extends RefusedError {
  override readonly code = 'RX_CURSOR_MISMATCH';
}

/** A salvage that would write nothing: no line of the transcript is a message. */
export class NothingToSalvageError extends RefusedError {
  override readonly code = 'RX_NOTHING_TO_SALVAGE';
}

/**
 * A file or folder rxstore would write over, or remove, that it did not write (no generator mark,
 * no site state of its own), or site state naming a file outside its site: refused unless the
 * user says `--force`.
 */
export class OverwriteRefusedError extends RefusedError {
  override readonly code = 'RX_OVERWRITE_REFUSED';
}

/**
 * A relocation that would lose or mix up sessions, refused before anything moves: the old folder
 * still there, another folder sharing its slug, a session id in both workspaces, too little free
 * space, another relocation left unfinished in the state root, or a store folder that is a link out of
 * the state root (`data.reason` says which).
 */
export class RelocationRefusedError extends RefusedError<
  ErrorData & { reason: 'old-exists' | 'shared-slug' | 'id-clash' | 'no-space' | 'unfinished' | 'linked-folder' }
> {
  override readonly code = 'RX_RELOCATION_REFUSED';
}
