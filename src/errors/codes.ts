/**
 * Every code rxstore gives an error or a finding, and the family each belongs to. The family says
 * what kind of trouble it is — and so how the CLI exits (`src/cli/exit-codes.ts`) and whether a
 * reader reports it as a session's verdict — so a caller narrows on `code` and never on a message.
 * docs/error-codes.md describes each.
 */
export const RX_ERROR_FAMILIES = {
  // The store's bytes are not what a writer produces: Reasonix refuses the session (`damaged session store: …`).
  RX_DAMAGED_STORE: 'damaged',
  RX_MISSING_CONTENT: 'damaged',
  RX_CORRUPT_CONTENT: 'damaged',
  RX_STRICT_PAYLOAD: 'damaged',
  RX_ZSTD_SIZE_MISMATCH: 'damaged',
  RX_SESSION_SYMLINK: 'damaged',
  RX_BLOCKED_FILE: 'damaged',
  RX_RECOVERY_CACHE_AHEAD: 'damaged',
  RX_RECOVERY_CACHE_DAMAGED: 'damaged',
  RX_QUERY_CACHE_BLOCKED: 'damaged',
  RX_MANIFEST_MISSING: 'damaged',
  RX_MANIFEST_INVALID: 'damaged',
  RX_MANIFEST_ID: 'damaged',
  RX_HEADER_INVALID: 'damaged',
  RX_LOG_MISSING: 'damaged',
  RX_JSONL_LINE: 'damaged',
  // A newer or unknown format (`unsupported session storage version: …`).
  RX_UNSUPPORTED_VERSION: 'unsupported',
  // A caller's mistake: how rxstore or the library was called.
  RX_USAGE: 'input',
  RX_INVALID_INPUT: 'input',
  RX_PATH_KIND: 'input',
  // What was asked for is not there, not a session, or not one session.
  RX_NOT_A_SESSION: 'lookup',
  RX_SESSION_NOT_FOUND: 'lookup',
  RX_AMBIGUOUS_SESSION: 'lookup',
  RX_JSONL_EMPTY: 'lookup',
  // An operation refused: it would write beside a running writer, over something, or what Reasonix would refuse.
  RX_WRITER_OWNED: 'refused',
  RX_SESSION_EXISTS: 'refused',
  RX_WRITE_REFUSED: 'refused',
  RX_EXPORT_REFUSED: 'refused',
  RX_MIGRATION_REFUSED: 'refused',
  RX_NOT_REGULAR_FILE: 'refused',
  RX_CURSOR_MISMATCH: 'refused',
  RX_NOTHING_TO_SALVAGE: 'refused',
  // Reasonix opens the session but refuses every new turn in it (its transcript gate).
  RX_TURN_REFUSED: 'refused',
  RX_OVERWRITE_REFUSED: 'refused',
  RX_RELOCATION_REFUSED: 'refused',
  // The machine, not the store: a file system error, no zstd, a lock taken away.
  RX_FILE_SYSTEM: 'environment',
  RX_SHORT_WRITE: 'environment',
  RX_ZSTD_UNAVAILABLE: 'environment',
  RX_LOCK_COMPROMISED: 'environment',
  // rxstore's own bound, not the store's fault: a record or file larger than rxstore holds in memory.
  RX_TOO_LARGE: 'environment',
  // Findings that never stop a read: warnings (the session opens, but something is off) and notes.
  RX_TORN_TAIL: 'finding',
  RX_UNPUBLISHED_DRAFT: 'finding',
  RX_OPEN_IN_REASONIX: 'finding',
  RX_NOT_WRITABLE: 'finding',
  RX_JSONL_META: 'finding',
  RX_IDENTITY_STALE: 'finding',
  RX_OFFSET_INDEX_STALE: 'finding',
  RX_EMPTY_TOOL_NAME: 'finding',
  RX_DANGLING_TOOL_CALL: 'finding',
  RX_TRUNCATED_ARGUMENTS: 'finding',
  RX_DUPLICATE_CALL_ID: 'finding',
  RX_PRUNED_TOOL_RESULT: 'finding',
  RX_NO_SYSTEM_MESSAGE: 'finding',
  RX_INTERRUPTED_TURN: 'finding',
  RX_COMPACTED: 'finding',
} as const;

export type RxErrorCode = keyof typeof RX_ERROR_FAMILIES;
export type RxErrorFamily = (typeof RX_ERROR_FAMILIES)[RxErrorCode];
/** The codes of one family. */
export type CodeOf<Family extends RxErrorFamily> = {
  [Code in RxErrorCode]: (typeof RX_ERROR_FAMILIES)[Code] extends Family ? Code : never;
}[RxErrorCode];

export function familyOf(code: RxErrorCode): RxErrorFamily {
  return RX_ERROR_FAMILIES[code];
}

/** Whether a string is one of rxstore's codes (a code read back from JSON, say). */
export function isRxErrorCode(code: unknown): code is RxErrorCode {
  return typeof code === 'string' && Object.hasOwn(RX_ERROR_FAMILIES, code);
}
