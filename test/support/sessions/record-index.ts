import { readFile, writeFile } from 'node:fs/promises';
import {
  openLogSession,
  type IndexRecord,
  type RecordChange,
  type RecordsCursor,
  type SessionFields,
} from '../../../src/index.js';
import { copySession, framesOf, logOf } from '../faults/faults.js';

/** An index as a reader of `recordsSince` keeps one: records by key, and the session's fields. */
export class RecordIndex {
  readonly records = new Map<string, IndexRecord>();
  session: SessionFields = { title: null, workspace: null, status: 'ok' };

  /** Applies changes in order: a record adds or replaces by its key; `removed` takes its key and every key under it. */
  apply(changes: readonly RecordChange[]): void {
    for (const change of changes) {
      if (change.type !== 'removed') {
        this.records.set(change.key, change);
        continue;
      }
      for (const key of [...this.records.keys()])
        if (key === change.key || key.startsWith(`${change.key}/`)) this.records.delete(key);
    }
  }

  /** The records, each with the session's title and workspace as the stream last gave them, by key. */
  current(): Map<string, IndexRecord> {
    const { title, workspace } = this.session;
    return new Map([...this.records].map(([key, record]) => [key, { ...record, title, workspace }]));
  }
}

/**
 * `records()` of a session, by key (a key given twice fails the caller's comparison: the last would
 * hide the first), and its status as `read()` says it, as the record stream says it (a torn tail,
 * invisible to the stream, is `ok` there: Reasonix takes a new turn).
 */
export async function wholeRecords(
  sessionDir: string,
): Promise<{ byKey: Map<string, IndexRecord>; count: number; status: string }> {
  const session = await openLogSession(sessionDir);
  const records: IndexRecord[] = [];
  for await (const record of session.records()) records.push(record);
  const { status } = await session.read();
  return {
    byKey: new Map(records.map((record) => [record.key, record])),
    count: records.length,
    status: status === 'torn-tail' ? 'ok' : status,
  };
}

/** Reads the records since `cursor` into `index`; returns the cursor to keep (the given one when nothing changed). */
export async function readInto(
  sessionDir: string,
  index: RecordIndex,
  cursor: RecordsCursor | undefined,
): Promise<RecordsCursor | undefined> {
  let last = cursor;
  for await (const piece of (await openLogSession(sessionDir)).recordsSince(cursor)) {
    index.apply(piece.records);
    if (piece.session) index.session = piece.session;
    // Kept as an indexer keeps it: JSON.
    last = JSON.parse(JSON.stringify(piece.cursor)) as RecordsCursor;
  }
  return last;
}

/** The offsets a log can be cut at: 0 and the end of every frame. */
export async function frameBoundaries(sessionDir: string): Promise<number[]> {
  return [0, ...(await framesOf(sessionDir)).map((frame) => frame.offset + frame.bytes)];
}

/**
 * A session whose log grows by appended pieces: a copy of `sessionDir` whose log holds its first
 * bytes only, then more of them.
 */
export async function growingCopy(sessionDir: string): Promise<{ dir: string; growTo(bytes: number): Promise<void> }> {
  const whole = await readFile(logOf(sessionDir));
  const dir = await copySession(sessionDir);
  const growTo = (bytes: number) => writeFile(logOf(dir), whole.subarray(0, bytes));
  await growTo(0);
  return { dir, growTo };
}
