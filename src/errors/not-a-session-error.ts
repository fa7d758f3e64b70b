import { InvalidInputError } from './rx-error.js';

/** A path that is missing or is not a session (a sessions-v4 directory or a `.jsonl` transcript). */
export class NotASessionError extends InvalidInputError {
  override readonly code: string = 'RX_NOT_A_SESSION';
}
