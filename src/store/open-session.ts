import { lstat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { InvalidInputError } from '../codec/errors.js';
import type { Cursor } from '../session/cursor.js';
import { followSession, type FollowOptions } from '../session/follow.js';
import { indexRecords, type IndexRecord } from '../session/index-records.js';
import type { Message } from '../session/message.js';
import { readSessionEvents, type ResolvedBatch } from '../session/read-events.js';
import { readSession, type SessionRead } from '../session/read-session.js';
import { readSince, type ReadSince } from '../session/read-since.js';
import { SESSION_FILES } from '../session/session-files.js';
import { canonicalTranscript, modelView, personView, type PersonMessage, type TimedMessage } from '../session/views.js';
import { workspaceOf } from '../session/workspace.js';
import { NotASessionError } from './not-a-session-error.js';
import { readJsonlSession } from './read-jsonl-session.js';
import { storeKindOf } from './store-kind.js';

/** One session of any store, opened for reading: what an indexer works with. */
export interface OpenedSession {
  id: string;
  path: string;
  format: 'v4' | 'jsonl';
  /** `sessions-v4`, `desktop-sessions-v5`, `jsonl`, or `unknown` for a directory outside a store. */
  store: string;
  /** Reads and verifies the whole session: status, problems, the replayed projection (messages whole unless `retainContent: false`). */
  read(options?: { retainContent?: boolean }): Promise<SessionRead>;
  /** The canonical transcript: every message, compacted ones included, with its time. */
  transcript(): AsyncIterable<TimedMessage>;
  /** What the model is sent. */
  modelView(): AsyncIterable<Message>;
  /** What a person reads. */
  personView(): AsyncIterable<PersonMessage>;
  /** The committed batches, each event's payload resolved and parsed (v4 only). */
  events(): AsyncIterable<ResolvedBatch>;
  /** Records for a search index: messages, shell commands, files touched. */
  records(): AsyncIterable<IndexRecord>;
  /** The batches committed since a cursor, and the cursor after them (v4 only). */
  readSince(cursor?: Cursor): Promise<ReadSince>;
  /** Each batch as it is committed, until the signal aborts (v4 only). */
  follow(options?: FollowOptions): AsyncIterable<{ batch: ResolvedBatch; cursor: Cursor }>;
}

async function* each<T>(items: Promise<T[]>): AsyncGenerator<T> {
  yield* await items;
}

/** Opens a sessions-v4 / desktop-v5 session directory or a `.jsonl` transcript. Nothing is written. */
export async function openSession(path: string): Promise<OpenedSession> {
  const full = resolve(path);
  const stats = await lstat(full).catch(() => undefined);
  if (!stats) throw new NotASessionError(`${full}: no such file or directory`, { file: full });
  const jsonl = stats.isFile() && full.endsWith('.jsonl');
  if (!jsonl && !(await lstat(`${full}/${SESSION_FILES.manifest}`).catch(() => undefined)) && !(await lstat(`${full}/${SESSION_FILES.log}`).catch(() => undefined))) {
    throw new NotASessionError(`${full}: not a session (a sessions-v4 directory or a .jsonl transcript)`, { file: full });
  }
  const read = (options: { retainContent?: boolean } = {}) => (jsonl ? readJsonlSession(full) : readSession(full, options));
  const v4Only = () => new InvalidInputError(`${full}: a JSONL transcript is read whole; migrate it to sessions-v4 to read it incrementally`, { file: full });
  const id = jsonl ? basename(full).replace(/\.jsonl$/, '') : basename(full);
  return {
    id,
    path: full,
    format: jsonl ? 'jsonl' : 'v4',
    store: jsonl ? 'jsonl' : storeKindOf(full),
    read,
    transcript: () => each(read().then((session) => canonicalTranscript(session.projection))),
    modelView: () => each(read().then((session) => modelView(session.projection))),
    personView: () => each(read().then((session) => personView(session.projection))),
    async *events() {
      if (jsonl) throw v4Only();
      for await (const item of readSessionEvents(full)) if (item.type === 'batch') yield item.value;
    },
    records: () =>
      each(
        read().then((session) =>
          indexRecords(canonicalTranscript(session.projection), { sessionId: id, workspace: workspaceOf(session) ?? null, title: session.projection.title ?? null }),
        ),
      ),
    async readSince(cursor) {
      if (jsonl) throw v4Only();
      return readSince(full, id, cursor);
    },
    async *follow(options = {}) {
      if (jsonl) throw v4Only();
      yield* followSession(full, id, options);
    },
  };
}
