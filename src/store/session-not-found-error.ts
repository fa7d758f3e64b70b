import { RxError } from '../codec/errors.js';

/** Reasonix: `no session matches "<query>"` (spec §16.3). */
export class SessionNotFoundError extends RxError {
  readonly code = 'RX_SESSION_NOT_FOUND';
}
