import { createHash } from 'node:crypto';

/** The parts of a records cursor its seal binds: where in the log it stands, and the records state made there. */
export interface SealedParts {
  log: {
    sessionId: string;
    offset: number;
    nextSequence: number;
    prefixDigest: string | null;
    anchorDigest: string | null;
  };
  session: unknown;
  pending: unknown;
  ids: unknown;
  calls: unknown;
  gate?: unknown;
}

/**
 * A records cursor's seal: a digest of its log position and the records state made there, as plain JSON with its
 * keys in order (a store that keeps JSON with its keys in another order, as PostgreSQL's jsonb does, keeps the same
 * seal). A cursor pieced from two (one's position, another's state) reads on from the wrong place; its seal tells.
 * The log's stamp and operation ids are not bound: a log verified again is given back with a new stamp.
 */
export function cursorSeal(cursor: SealedParts): string {
  const { sessionId, offset, nextSequence, prefixDigest, anchorDigest } = cursor.log;
  const bound = {
    log: { sessionId, offset, nextSequence, prefixDigest, anchorDigest },
    session: cursor.session,
    pending: cursor.pending,
    ids: cursor.ids,
    calls: cursor.calls,
    gate: cursor.gate ?? null,
  };
  return createHash('sha256').update(orderedJson(bound)).digest('hex');
}

/** JSON with every object's keys in code-point order: the same text for the same value, however it was stored. */
function orderedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(orderedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${orderedJson(each)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
