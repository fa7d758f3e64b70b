import type { CodeOf } from './codes.js';
import { RxError, type ErrorData } from './rx-error.js';

/** One candidate for a session query: a copy's id, store and path. */
export interface SessionCandidate {
  id: string;
  store: string;
  path: string;
}

/** What was asked for is not there, not a session, or not one session (exit 2). */
export abstract class LookupError<Data extends ErrorData = ErrorData> extends RxError<Data> {
  abstract override readonly code: CodeOf<'lookup'>;
}

/** A path that is missing or is not a session (a sessions-v4 directory or a `.jsonl` transcript). */
export class NotASessionError extends LookupError {
  override readonly code = 'RX_NOT_A_SESSION';
}

/** Reasonix: `no session matches "<query>"` (docs/format.md §16). */
export class SessionNotFoundError extends LookupError {
  override readonly code = 'RX_SESSION_NOT_FOUND';
}

/** A transcript of zero bytes: Reasonix does not list it (`no session matches`). */
export class EmptyTranscriptError extends LookupError {
  override readonly code = 'RX_JSONL_EMPTY';
}

/** A session query (an id prefix) that names more than one session: none is picked for the caller. */
export class AmbiguousSessionError extends LookupError<ErrorData & { candidates: SessionCandidate[] }> {
  override readonly code = 'RX_AMBIGUOUS_SESSION';

  constructor(message: string, candidates: SessionCandidate[]) {
    super(message, { candidates });
  }

  get candidates(): SessionCandidate[] {
    return this.data.candidates;
  }
}
