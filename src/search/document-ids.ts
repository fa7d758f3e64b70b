import type { Statement } from 'node-sqlite3-wasm';

/**
 * A document's id (its row in `docs` and in the FTS5 table) holds its session: the session's number
 * times `SESSION_SPAN`, plus the document's place in that span. A ranked search counts each session's
 * hits from the ids alone (`SESSION_OF_DOCUMENT`), without reading each hit's row: on a session of
 * 1 GiB, reading those rows was more than a third of a search.
 */
export const SESSION_SPAN = 2 ** 32;
/** The session a document id is of, in SQL. */
export const SESSION_OF_DOCUMENT = (id: string) => `(${id} >> 32)`;
/** Ids stay exact as JavaScript numbers below 2^53: session numbers stay below 2^21. */
const LAST_SESSION_NUMBER = 2 ** 21 - 1;

type Query = (sql: string) => Statement;
type IdRow = { id: number | null } | null;

/**
 * The ids of the documents written for one session while no other session's are (taken again after
 * its documents are dropped): the next in the session's span, or, when it has no documents, in a span
 * no session has. A span is never full: 2^32 ids outlast every document a session can be written.
 */
export function documentIdsOf(query: Query, path: string): () => number {
  let next: number | undefined;
  return () => {
    next ??= firstFreeId(query, path);
    return next++;
  };
}

function firstFreeId(query: Query, path: string): number {
  const some = query('select id from docs where path = ? limit 1').get([path]) as IdRow;
  if (some?.id != null) {
    const from = Math.floor(some.id / SESSION_SPAN) * SESSION_SPAN;
    const last = query('select max(id) as id from docs where id >= ? and id < ?').get([
      from,
      from + SESSION_SPAN,
    ]) as IdRow;
    return last!.id! + 1;
  }
  const top = (query('select max(id) as id from docs').get([]) as IdRow)?.id ?? 0;
  const number = Math.floor(top / SESSION_SPAN) + 1;
  return (number <= LAST_SESSION_NUMBER ? number : lowestFreeNumber(query)) * SESSION_SPAN;
}

/**
 * The lowest session number no document holds. Numbers are taken from the top, so this is reached only
 * after two million sessions were indexed again from the start; it reads every document's id once.
 */
function lowestFreeNumber(query: Query): number {
  let expected = 1;
  for (const row of query(`select distinct ${SESSION_OF_DOCUMENT('id')} as id from docs order by 1`).iterate(
    [],
  ) as Iterable<IdRow>) {
    if (row!.id !== expected) break;
    expected += 1;
  }
  return expected;
}
