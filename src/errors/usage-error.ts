/** A mistake in how rxstore was called (exit 2), as opposed to a problem found in a store (exit 1). */
export class UsageError extends Error {
  readonly code = 'RX_USAGE';
}
