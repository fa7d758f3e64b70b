import type { CodeOf } from './codes.js';
import { RxError } from './rx-error.js';

/** A caller's mistake rather than a store's: a bad argument, a record that cannot be written (exit 2). */
export class InvalidInputError extends RxError {
  readonly code: CodeOf<'input'> = 'RX_INVALID_INPUT';
}

/** A mistake in how the `rxstore` command was called (exit 2); the CLI prints its message without the code. */
export class UsageError extends InvalidInputError {
  override readonly code = 'RX_USAGE';
}

/**
 * A path of the wrong kind for what it is to be: a file where a folder is needed, or a folder
 * where a file is (exit 2). The message names the path as the user gave it.
 */
export class PathKindError extends InvalidInputError {
  override readonly code = 'RX_PATH_KIND';
}
