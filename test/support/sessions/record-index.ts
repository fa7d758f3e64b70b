import { readFile, writeFile } from 'node:fs/promises';
import {
  openLogSession,
  type IndexRecord,
  type RecordChange,
  type RecordsCursor,
  type SessionFields,
  type WrittenMessage,
  type TranscriptWrites,
} from '../../../src/index.js';
import { seenByPerson } from '../../../src/session/replay/views.js';
import { copySession, framesOf, logOf } from '../faults/faults.js';

/** An index as a reader of `recordsSince` keeps one: records by key, and the session's fields. */
export class RecordIndex {
  readonly records = new Map<string, IndexRecord>();
  session: SessionFields = { title: null, workspace: null, status: 'ok' };
  /** The transcript's messages, in order, as the pieces' `transcript` writes make them. */
  transcript: WrittenMessage[] = [];

  /** Applies a piece's transcript writes: an id the transcript holds is rewritten in place, any other appended. */
  write(writes: TranscriptWrites | undefined): void {
    if (!writes) return;
    if (writes.whole) this.transcript = [];
    for (const entry of writes.entries) {
      const at = entry.id === null ? -1 : this.transcript.findIndex((held) => held.id === entry.id);
      if (at < 0) this.transcript.push(entry);
      else this.transcript[at] = entry;
    }
  }

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
export async function wholeRecords(sessionDir: string): Promise<{
  byKey: Map<string, IndexRecord>;
  count: number;
  status: string;
  transcript: WrittenMessage[];
  personIds: (string | null)[];
}> {
  const session = await openLogSession(sessionDir);
  const records: IndexRecord[] = [];
  for await (const record of session.records()) records.push(record);
  const { status } = await session.read();
  const transcript: WrittenMessage[] = [];
  const personIds: (string | null)[] = [];
  // A damaged log (the stream stops at the damage): the transcript up to it is compared elsewhere.
  if (status !== 'damaged' && status !== 'unsupported') {
    for await (const { message } of session.transcript())
      transcript.push({ id: message.id ?? null, seen: seenByPerson(message) });
    for await (const message of session.personView()) personIds.push(message.id ?? null);
  }
  return {
    byKey: new Map(records.map((record) => [record.key, record])),
    count: records.length,
    status: status === 'torn-tail' ? 'ok' : status,
    transcript,
    personIds,
  };
}

/** Reads the records since `cursor` into `index`; returns the cursor to keep (the given one when nothing changed). */
export async function readInto(
  sessionDir: string,
  index: RecordIndex,
  cursor: RecordsCursor | undefined,
): Promise<RecordsCursor | undefined> {
  let last = cursor;
  // To the end: the batches after the last change are covered too, and what they wrote to the transcript given.
  for await (const piece of (await openLogSession(sessionDir)).recordsSince(cursor, { cursorAtEnd: true })) {
    index.apply(piece.records);
    index.write(piece.transcript);
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
