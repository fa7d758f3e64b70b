import { RxError } from './rx-error.js';

/** One candidate for a session query: a copy's id, store and path. */
export interface SessionCandidate {
  id: string;
  store: string;
  path: string;
}

/** A session query (an id prefix) that names more than one session: none is picked for the caller. */
export class AmbiguousSessionError extends RxError {
  readonly code: string = 'RX_AMBIGUOUS_SESSION';

  constructor(
    message: string,
    readonly candidates: SessionCandidate[],
  ) {
    super(message);
  }

  override toJSON() {
    return { ...super.toJSON(), candidates: this.candidates };
  }
}
