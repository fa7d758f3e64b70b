import { RxError } from './rx-error.js';

/** Reasonix: `no session matches "<query>"` (docs/format.md §16). */
export class SessionNotFoundError extends RxError {
  readonly code = 'RX_SESSION_NOT_FOUND';
}
