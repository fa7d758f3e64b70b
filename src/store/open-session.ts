import { lstatSync, type Stats } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { filesStamp, statOrCode } from '../fs/files-stamp.js';
import {
  EmptyTranscriptError,
  InvalidInputError,
  isCutAfter,
  NotASessionError,
  undefinedIfMissing,
} from '../errors/index.js';
import type { Cursor } from '../session/cursors/cursor.js';
import { followSession, type FollowOptions } from '../session/cursors/follow.js';
import { recordsSinceFile, type CursorFileOptions } from '../session/cursors/cursor-file.js';
import { readHeader } from '../session/reading/header.js';
import { indexRecords, keyedMessages, type IndexRecord } from '../session/replay/index-records.js';
import type { Message } from '../session/replay/message.js';
import { readableOrThrow } from '../session/reading/read-json-file.js';
import type { ResolvedBatch } from '../session/reading/read-events.js';
import {
  readSession,
  readSessionOn,
  type ReadSessionOptions,
  type SessionRead,
} from '../session/verdict/read-session.js';
import {
  batchesSince,
  readSince,
  type BatchSince,
  type ReadSince,
  type ReadSinceOptions,
} from '../session/cursors/read-since.js';
import {
  recordsSinceNamed,
  type AcceptedRecordsCursor,
  type RecordsSince,
  type RecordsSinceOptions,
} from '../session/cursors/records-since.js';
import { SESSION_FILES, sessionReadPaths } from '../session/reading/session-files.js';
import { replayedBatches } from '../session/verdict/replayed-batches.js';
import { directoryRefusal } from '../session/reading/directory-refusal.js';
import {
  canonicalTranscript,
  modelView,
  personMessage,
  transcriptClock,
  type PersonMessage,
  type TimedMessage,
} from '../session/replay/views.js';
import type { TranscriptEntry } from '../session/replay/transcript-index.js';
import { workspaceOf } from '../session/verdict/read-session.js';
import { streamedRecords, streamedTranscript } from '../session/verdict/streamed-records.js';
import { readJsonlSession } from './jsonl/read-jsonl-session.js';
import { transcriptEntries, transcriptRecords } from './jsonl/transcript-records.js';
import { storeKindOf, type StoreKind } from './roots/store-kind.js';
import { checkPath } from '../errors/caller-input.js';

/**
 * What every opened session can do, whatever its store. Every view gives what precedes any damage,
 * then throws the coded RxError that `read()` reports as `refusal` (a `DamagedStoreError` or
 * `UnsupportedVersionError`); `salvage` is for reading past it.
 */
/** What a whole read keeps of each message (a JSONL transcript is always kept whole). */
export type { CursorFileOptions };
export type SessionReadOptions = Pick<ReadSessionOptions, 'keep' | 'previews' | 'retainContent'>;

/** What every opened session can do, whatever its format. */
export interface SessionReader {
  id: string;
  path: string;
  /**
   * Reads and verifies the whole session: status, problems, the replayed projection (messages whole
   * unless `keep` says otherwise). A whole read is shared with the views below, and read again only
   * once a file of the session changed: treat what it returns as read-only.
   */
  read(options?: SessionReadOptions): Promise<SessionRead>;
  /**
   * The canonical transcript: every message, compacted ones included, with its time. It streams, as
   * `personView` and `records` do: from the whole read the session holds when `read()` was asked for
   * one and its files still stand, else from the session read twice (the verdict and the transcript's
   * index, then each message once final), in memory that does not grow with the session.
   */
  transcript(): AsyncIterable<TimedMessage>;
  /** What the model is sent: from a whole read (compaction applies to the whole transcript). */
  modelView(): AsyncIterable<Message>;
  /** What a person reads. */
  personView(): AsyncIterable<PersonMessage>;
  /** Records for a search index: messages, shell commands with their outcome, files touched. */
  records(): AsyncIterable<IndexRecord>;
}

/** A sessions-v4 or desktop-sessions-v5 directory: an append-only log, so it can be read incrementally. */
export interface OpenedLogSession extends SessionReader {
  format: 'v4';
  /** The store the directory sits in; `unknown` for a directory outside a store. */
  store: StoreKind;
  /** The committed batches, each event's payload resolved and parsed. */
  events(): AsyncIterable<ResolvedBatch>;
  /** The batches committed since a cursor, one at a time, each with the cursor after it. */
  batchesSince(cursor?: Cursor, options?: ReadSinceOptions): AsyncIterable<BatchSince>;
  /**
   * The batches committed since a cursor, gathered, and the cursor after them. It holds what it
   * gathers, so its peak memory grows with it (about three times the batches' raw bytes); `batchesSince`
   * or `maxBatches` keep it bounded by the largest batch.
   */
  readSince(cursor?: Cursor, options?: ReadSinceOptions): Promise<ReadSince>;
  /**
   * The changes to the index records committed since a records cursor (every record without one):
   * a piece after each batch that changed something, each with the cursor to keep. Applied in order
   * by `key` (a `removed` record takes its key and every key under it), a read that ran to the end
   * gives exactly `records()`, but for the title and workspace, which a record keeps as they were
   * when it was given and a piece's `session` gives when they change.
   */
  recordsSince(cursor?: AcceptedRecordsCursor, options?: RecordsSinceOptions): AsyncIterable<RecordsSince>;
  /**
   * `recordsSince` from the cursor kept in `file` (every record when there is none yet), the
   * cursor after the last batch read written back to it atomically, also when the read stops at
   * damage or the caller stops early. A file that is no cursor of this session is refused, named.
   */
  recordsSinceFile(file: string, options?: CursorFileOptions): AsyncIterable<RecordsSince>;
  /** Each batch as it is committed, until the signal aborts. */
  follow(options?: FollowOptions): AsyncIterable<BatchSince>;
}

/**
 * A JSONL transcript: read from its start every time (migrate it to sessions-v4 to read it
 * incrementally). A `read` that keeps no message (`keep: 'index'` or `'summary'`) and the streamed
 * views replay it a run of messages at a time, in memory that does not grow with it (the views read
 * it twice, as a log's); a whole `read()` and `modelView` keep it whole.
 */
export interface OpenedTranscript extends SessionReader {
  format: 'jsonl';
  store: 'jsonl';
}

/** One session of any store, opened for reading: what an indexer works with. `format` tells which. */
export type OpenedSession = OpenedLogSession | OpenedTranscript;

/**
 * A view of a whole session: everything that precedes any damage, then — when Reasonix would refuse
 * the session — the same coded error `read()` reports, so a partial answer never passes for whole.
 */
async function* verifiedView<T>(reading: Promise<SessionRead>, view: (read: SessionRead) => T[]): AsyncGenerator<T> {
  const read = await reading;
  yield* view(read);
  if (read.refusal) throw read.refusal;
}

/**
 * A view from the whole read an opened session holds, while it holds one that still stands (an
 * indexer that asked for the read pays for no other), else `streamed`: the session read twice, in
 * memory that does not grow with it. Either gives the same, damage thrown after what precedes it.
 */
async function* heldOrStreamed<T>(
  whole: SharedRead,
  files: readonly string[],
  view: (read: SessionRead) => T[] | undefined,
  streamed: () => AsyncIterable<T>,
): AsyncGenerator<T> {
  // A small session is read once, whole, and held for the next view: a second pass would cost more time than its memory saves.
  const read = (await whole.held()) ?? (bytesOf(files) <= READ_WHOLE_UP_TO ? await whole.read() : undefined);
  const viewed = read && view(read);
  if (viewed === undefined) {
    yield* streamed();
    return;
  }
  yield* viewed;
  if (read!.refusal) throw read!.refusal;
}

/** How many bytes the files hold now (one that is not there, none). */
function bytesOf(files: readonly string[]): number {
  return files.reduce((sum, file) => {
    const stats = statOrCode(file);
    return sum + (typeof stats === 'string' ? 0 : Number(stats.size));
  }, 0);
}

/**
 * The most a session's files may hold for a view to read it whole. Held whole, its messages take a
 * few times the log's size (a 1 GiB log's `cat` held 612 MiB; streamed, 173 MiB for twice the time);
 * up to this size a whole read's peak stays under what two passes of any session peak at (about
 * 130 MiB).
 */
const READ_WHOLE_UP_TO = 8 * 1024 * 1024;

/** A whole read shared by every view and whole `read()` of an opened session while its files stand. */
interface SharedRead {
  /** The read held, or a new one when none is held or a file it came from changed. */
  read(): Promise<SessionRead>;
  /** The read held when it still stands, without reading; undefined otherwise. */
  held(): Promise<SessionRead | undefined>;
}

/**
 * One whole read for every view and every whole `read()` of an opened session, while the files it
 * came from stand as they were: an indexer that asks for a summary, the records and the transcript
 * reads the log once. A file that changed (an append, a repair), or a content-store object one of
 * its payloads came from, makes the next one read it again; a read that fails is never kept.
 */
function sharedWholeRead(files: string[], read: () => Promise<SessionRead>): SharedRead {
  let kept: { stamp: string; reading: Promise<SessionRead>; content?: string } | undefined;
  const stillHolds = async (held: NonNullable<typeof kept>, stamp: string): Promise<boolean> => {
    if (held.stamp !== stamp) return false;
    const done = await held.reading.catch(() => undefined);
    // A payload in the content store lives outside the session's files: its objects are stamped too.
    return done === undefined || held.content === undefined || held.content === filesStamp(done.contentFiles);
  };
  return {
    async read() {
      // Taken before the read: a file that changes during it gives a newer stamp next time, never a stale read.
      const stamp = filesStamp(files);
      if (!kept || !(await stillHolds(kept, stamp))) {
        const reading = read();
        const held: NonNullable<typeof kept> = { stamp, reading };
        kept = held;
        reading.then(
          (done) => {
            if (done.contentFiles.length > 0) held.content = filesStamp(done.contentFiles);
          },
          () => {
            if (kept === held) kept = undefined;
          },
        );
      }
      return kept.reading;
    },
    async held() {
      const held = kept;
      if (!held || !(await stillHolds(held, filesStamp(files)))) return undefined;
      return held.reading.catch(() => undefined);
    },
  };
}

/** How a session is read twice, in memory that does not grow with it: its transcript, its records. */
interface StreamedViews {
  transcript(): AsyncIterable<TranscriptEntry>;
  records(): AsyncIterable<IndexRecord>;
}

/**
 * The views every store shares: from a whole read the session holds while `files` do not change,
 * else `streamed` over their first pass: `readIndex`, the read that keeps only the transcript's index
 * (and the previews of what was typed), held as the whole read is and shared with a `read` that asks for it.
 */
function readerOver(
  id: string,
  path: string,
  files: string[],
  read: (options?: SessionReadOptions) => Promise<SessionRead>,
  readIndex: () => Promise<SessionRead>,
  streamedOver: (firstPass: () => Promise<SessionRead>) => StreamedViews,
): SessionReader {
  const whole = sharedWholeRead(files, () => read({ keep: 'whole' }));
  const index = sharedWholeRead(files, readIndex);
  const streamed = streamedOver(index.read);
  const keepsWhole = (options: SessionReadOptions = {}) =>
    options.previews === undefined &&
    (options.keep === 'whole' || (options.keep === undefined && options.retainContent !== false));
  const transcript = () =>
    heldOrStreamed(
      whole,
      files,
      (session) => canonicalTranscript(session.projection),
      () => timed(streamed.transcript()),
    );
  return {
    id,
    path,
    read: (options) =>
      keepsWhole(options)
        ? whole.read()
        : options?.keep === 'index' && options.previews !== false
          ? index.read()
          : read(options),
    transcript,
    modelView: () => verifiedView(whole.read(), (session) => modelView(session.projection)),
    personView: () => seenByPerson(transcript()),
    records: () =>
      heldOrStreamed(
        whole,
        files,
        (session) =>
          // Refused at an event: the records of the batches before it, which the stream reads (`recordsBeforeRefusal`).
          session.refusal && session.projection.refusedAt !== undefined
            ? undefined
            : indexRecords(
                keyedMessages(id, session.projection.transcript),
                { sessionId: id, workspace: workspaceOf(session) ?? null, title: session.projection.title ?? null },
                { unansweredFrom: session.refusal ? session.projection.openFrom() : undefined },
              ),
        streamed.records,
      ),
  };
}

/** The canonical transcript's messages, timed as `canonicalTranscript` times them. */
async function* timed(entries: AsyncIterable<TranscriptEntry>): AsyncGenerator<TimedMessage> {
  const clock = transcriptClock();
  for await (const entry of entries) yield clock(entry);
}

/** What a person reads of the canonical transcript, as `personView` gives it. */
async function* seenByPerson(transcript: AsyncIterable<TimedMessage>): AsyncGenerator<PersonMessage> {
  for await (const timedMessage of transcript) {
    const message = personMessage(timedMessage);
    if (message) yield message;
  }
}

/** Opens a sessions-v4 / desktop-v5 session directory or a `.jsonl` transcript. Nothing is written. */
export async function openSession(path: string): Promise<OpenedSession> {
  checkPath(path);
  const full = resolve(path);
  const stats = lstatOrMissing(full);
  if (!stats) throw new NotASessionError(`${full}: no such file or directory`, { file: full });
  if (stats.isFile() && full.endsWith('.jsonl')) {
    // Reasonix answers `no session matches` for a transcript of zero bytes: it is not a session.
    if (stats.size === 0)
      throw new EmptyTranscriptError(`${full}: empty transcript: Reasonix does not list it (no session matches)`, {
        file: full,
        offset: 0,
      });
    const id = basename(full).replace(/\.jsonl$/, '');
    return {
      ...readerOver(
        id,
        full,
        [full, `${full}.meta`],
        (options) => readJsonlSession(full, options),
        () => readJsonlSession(full, { keep: 'index', previews: true }),
        (firstPass) => ({
          transcript: () => transcriptEntries(full, firstPass),
          records: () => transcriptRecords(full, id, firstPass),
        }),
      ),
      format: 'jsonl',
      store: 'jsonl',
    };
  }
  if (!lstatOrMissing(join(full, SESSION_FILES.manifest)) && !lstatOrMissing(join(full, SESSION_FILES.log))) {
    throw new NotASessionError(`${full}: not a session (a sessions-v4 directory or a .jsonl transcript)`, {
      file: full,
    });
  }
  const id = basename(full);
  const session: OpenedLogSession = {
    ...readerOver(
      id,
      full,
      [join(full, SESSION_FILES.log), join(full, SESSION_FILES.manifest), join(full, SESSION_FILES.header)],
      (options = {}) => readSession(full, options),
      // On this thread, as the streams since a cursor read: a log worker is a second heap, and the views hold memory flat.
      () => readSessionOn('this', full, { keep: 'index', previews: true }),
      (firstPass) => ({
        transcript: () => streamedTranscript(full, firstPass),
        records: () => streamedRecords(full, id, firstPass),
      }),
    ),
    format: 'v4',
    store: storeKindOf(full),
    async *events() {
      const refusal = await directoryRefusal(full);
      if (refusal) throw refusal;
      let givenEnd = 0;
      try {
        for await (const { batch } of replayedBatches(full)) {
          givenEnd = batch.batch.end;
          yield batch;
        }
      } catch (error) {
        // A torn tail cut while this read was in it: every batch was given, and the log now ends there.
        if (!isCutAfter(error, givenEnd)) throw error;
      }
    },
    batchesSince: (cursor, options) => batchesSince(full, id, cursor, options),
    readSince: (cursor, options) => readSince(full, id, cursor, options),
    recordsSince: (cursor, options) =>
      // The workspace a desktop session's header names; otherwise what its own messages say. Read
      // only when a batch is new: an indexer's re-run over an unchanged session never opens it.
      recordsSinceNamed(
        full,
        id,
        async () => {
          const header = readableOrThrow(await readHeader(join(full, SESSION_FILES.header)));
          return header.state === 'ok' ? (header.value.cwd ?? null) : null;
        },
        cursor,
        options,
      ),
    recordsSinceFile: (file, options) =>
      recordsSinceFile((cursor, since) => session.recordsSince(cursor, since), file, sessionReadPaths(full), options),
    follow: (options = {}) => followSession(full, id, options),
  };
  return session;
}

/**
 * What stands at `path` (not followed if a link), or undefined when nothing does; any other system
 * error as a `FileSystemError`. Synchronous, as metadata looks are: an indexer opens every session
 * of a machine on each run, and a look takes microseconds.
 */
function lstatOrMissing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    return undefinedIfMissing(error, path);
  }
}

/**
 * Opens a sessions-v4 / desktop-v5 session directory, for incremental reading (cursors, records
 * since a cursor, following); a JSONL transcript is refused with a pointer to `migrate`.
 */
export async function openLogSession(path: string): Promise<OpenedLogSession> {
  const session = await openSession(path);
  if (session.format === 'v4') return session;
  throw new InvalidInputError(
    `${session.path}: a JSONL transcript is read whole; migrate it to sessions-v4 to read it incrementally`,
    { file: session.path },
  );
}
