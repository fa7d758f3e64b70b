import { existsSync, lstatSync, opendirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import {
  CursorMismatchError,
  fileSystemErrorOf,
  isSessionVerdict,
  isSystemError,
  RxError,
  systemErrorInWords,
  type RxErrorCode,
} from '../../errors/index.js';
import { filesStamp } from '../../fs/files-stamp.js';
import type { RecordsCursor, SessionFields } from '../../session/cursors/records-since.js';
import { sessionKey, type IndexRecord, type RecordChange } from '../../session/replay/index-records.js';
import { workspaceOf } from '../../session/verdict/read-session.js';
import { findSessionCopies } from '../listing/find-session-copies.js';
import { groupConversations, type Conversation } from '../listing/group-conversations.js';
import type { SessionCopy } from '../listing/session-copy.js';
import { openLogSession, openSession } from '../open-session.js';
import type { Platform } from '../roots/platform.js';
import type { ReadRoot } from '../roots/roots.js';
import type { ListedStore } from '../roots/store-kind.js';
import { parseIndexCheckpoint, type CheckpointEntry, type IndexCheckpoint } from './index-checkpoint.js';
import { checkPlatformOptions, checkRoots } from '../../errors/caller-input.js';

/** Records of a transcript given at most this many to a piece: a piece's size stays bounded whatever the transcript. */
const TRANSCRIPT_PIECE = 1000;

/** Whose rules, which checkpoint, which stores. */
export interface IndexSinceOptions {
  /** Whose path and slug rules apply (`machineRoots().inputs.platform`). */
  platform: Platform;
  /** The checkpoint of the last run (`run.checkpoint()`, as stored JSON); none for a first run. Validated: one rxstore did not make is `CursorMismatchError`. */
  checkpoint?: unknown;
  /** Only these stores. */
  stores?: readonly ListedStore[];
}

/** The session a piece is of, as known after it: the copy read, its title, workspace and status. */
export interface IndexedSession {
  id: string;
  /** The session directory, or the transcript file. */
  path: string;
  store: ListedStore;
  title: string | null;
  workspace: string | null;
  /**
   * Whether Reasonix takes a new turn in it (`ok`), opens it but refuses every new turn
   * (`turn-refused`), or refuses it (`damaged`, `unsupported`: the piece's `problem` says why), as
   * `read()`, `ls` and `inspect` say it.
   */
  status: SessionFields['status'] | 'damaged' | 'unsupported';
}

/** Why a session could not be read (further): its code, in words, and the file. */
export interface IndexProblem {
  code: RxErrorCode;
  message: string;
  file?: string;
}

/** What an index run gives: changes to one session's records, to apply in order by key, or a problem with it. */
export interface IndexPiece {
  session: IndexedSession;
  /** Records that add or replace by `key`, and `removed` records that take their key and the keys under it. */
  records: RecordChange[];
  /** Set when reading the session stopped here: what it read before is in this and earlier pieces. */
  problem?: IndexProblem;
}

/** An index run: its pieces, and the checkpoint that covers every piece given so far. */
export interface IndexRun extends AsyncIterable<IndexPiece> {
  /** Where the index stands after the pieces given so far (sessions not reached yet keep their entry): store it once their records are stored. */
  checkpoint(): IndexCheckpoint;
  /**
   * What the run could not look at, in words, once it has listed the roots (a store folder this user may not
   * read, a name that is not UTF-8), as `listSessions` says it: the sessions there are neither read nor removed.
   */
  warnings(): readonly string[];
}

/**
 * The changes to the records of every session under the roots since a checkpoint: a session new
 * or changed since gives its new records (a log copy from its cursor; a transcript, read whole,
 * all of them after a `removed` of its key), one gone or replaced by another copy (a transcript
 * migrated into a log) a `removed` of its key, an unchanged one nothing. One session that cannot
 * be read gives a piece with its `problem` (a code), never stops the others. Applied in order by
 * key, the pieces keep an index equal to `records()` of every session read.
 */
export function indexSince(roots: readonly ReadRoot[], options: IndexSinceOptions): IndexRun {
  checkRoots(roots);
  checkPlatformOptions(options, 'indexSince');
  const given = parseIndexCheckpoint(options.checkpoint);
  const entries = new Map(given.sessions.map((entry) => [entry.path, entry]));
  let warnings: readonly string[] = [];
  return {
    checkpoint: () => ({ version: 1, sessions: [...entries.values()] }),
    warnings: () => warnings,
    async *[Symbol.asyncIterator]() {
      const found = await findSessionCopies([...roots], options.stores);
      warnings = found.warnings;
      const conversations = groupConversations(found, options.platform);
      const read = conversations
        .map((conversation) => ({ conversation, copy: copyToRead(conversation) }))
        .filter((each): each is { conversation: Conversation; copy: SessionCopy } => each.copy !== undefined);
      const chosen = new Set(read.map(({ copy }) => copy.path));
      const seen = new Set(found.copies.map((copy) => copy.path));
      // First what is gone: a session removed, or a copy another copy of its conversation now stands for.
      for (const entry of [...entries.values()]) {
        if (chosen.has(entry.path)) continue;
        if (!seen.has(entry.path)) {
          // Not found now: gone, or where this run could not look, which says nothing of its sessions: they are kept.
          const unknown = roots
            .filter((root) => isWithin(entry.path, root.path))
            .map((root) => whyNotFound(root.path, entry.path))
            .find((problem) => problem !== undefined);
          if (unknown) {
            yield { session: sessionOfEntry(entry), records: [], problem: unknown };
            continue;
          }
          // There, in a store this run does not read.
          if (!missing(entry.path)) continue;
        }
        entries.delete(entry.path);
        yield { session: sessionOfEntry(entry), records: [removedSession(entry.id)] };
      }
      for (const { copy } of read) {
        // An unchanged session costs a few synchronous stats: a run over thousands of them lets
        // timers, I/O and signals in between sessions, as a polling indexer needs.
        await new Promise<void>((resolve) => setImmediate(resolve));
        yield* readCopy(copy, entries);
      }
    },
  };
}

/** The copy a conversation is indexed from: its log (a published one first), else its transcript. */
function copyToRead(conversation: Conversation): SessionCopy | undefined {
  const logs = conversation.copies.filter((copy) => copy.format === 'v4');
  const published = logs.find((copy) => copy.manifest.state !== 'ok' || (copy.manifest.value.storageRevision ?? 0) > 0);
  return published ?? logs[0] ?? conversation.copies.find((copy) => copy.path.endsWith('.jsonl'));
}

async function* readCopy(copy: SessionCopy, entries: Map<string, CheckpointEntry>): AsyncGenerator<IndexPiece> {
  const entry = entries.get(copy.path);
  const session: IndexedSession = {
    id: copy.id,
    path: copy.path,
    store: copy.store,
    title: null,
    workspace: null,
    status: 'ok',
  };
  // The session as the last piece given described it: a problem after it keeps its title and workspace.
  let last = session;
  try {
    const pieces = copy.format === 'v4' ? readLog(session, entry, entries) : readTranscript(session, entry, entries);
    for await (const piece of pieces) {
      last = piece.session;
      yield piece;
    }
  } catch (error) {
    const coded = fileSystemErrorOf(error, copy.path);
    if (!(coded instanceof RxError)) throw coded;
    // Damage or a version Reasonix does not support is the session's verdict; a file-system error is not.
    const status = isSessionVerdict(coded) ? (coded.family === 'unsupported' ? 'unsupported' : 'damaged') : last.status;
    yield {
      session: { ...last, status },
      records: [],
      problem: { code: coded.code, message: coded.message, ...(coded.data.file ? { file: coded.data.file } : {}) },
    };
  }
}

/** A log copy from its cursor; from its start, replacing what was indexed of it, when it has none or the log no longer fits it. */
async function* readLog(
  session: IndexedSession,
  entry: CheckpointEntry | undefined,
  entries: Map<string, CheckpointEntry>,
): AsyncGenerator<IndexPiece> {
  const opened = await openLogSession(session.path);
  const cursor = entry && 'cursor' in entry ? entry.cursor : undefined;
  try {
    yield* readLogFrom(opened, session, cursor, false, entries);
  } catch (error) {
    // Rewritten under the cursor (a copy put back, another log), or a cursor of an earlier rxstore: read again from the start.
    if (!(error instanceof CursorMismatchError) || cursor === undefined) throw error;
    yield* readLogFrom(opened, session, undefined, true, entries);
  }
}

async function* readLogFrom(
  opened: Awaited<ReturnType<typeof openLogSession>>,
  session: IndexedSession,
  cursor: RecordsCursor | undefined,
  replacing: boolean,
  entries: Map<string, CheckpointEntry>,
): AsyncGenerator<IndexPiece> {
  let fields: SessionFields = cursor
    ? { ...cursor.session, status: cursor.session.status ?? 'ok' }
    : { title: null, workspace: null, status: 'ok' };
  let first = replacing;
  for await (const piece of opened.recordsSince(cursor, { cursorAtEnd: true })) {
    if (piece.session) fields = piece.session;
    const records = first ? [removedSession(session.id), ...piece.records] : piece.records;
    first = false;
    entries.set(session.path, { path: session.path, id: session.id, store: session.store, cursor: piece.cursor });
    yield { session: { ...session, ...fields }, records };
  }
  // The session read to its end: the checkpoint keeps its cursor made now, from the log as read, never later
  // (when a checkpoint taken after the run would read a log changed or removed since).
  const read = entries.get(session.path);
  if (!first && read && 'cursor' in read) entries.set(session.path, { ...read, cursor: settledCursor(read.cursor) });
  // A log that no longer holds a batch: what was indexed of it is gone, and the entry with it.
  if (first) {
    entries.delete(session.path);
    yield { session: { ...session, ...fields }, records: [removedSession(session.id)] };
  }
}

/** A transcript, read whole when its files changed since the entry's stamp: every record, after a `removed` of its key. */
async function* readTranscript(
  session: IndexedSession,
  entry: CheckpointEntry | undefined,
  entries: Map<string, CheckpointEntry>,
): AsyncGenerator<IndexPiece> {
  const stamp = filesStamp([session.path, `${session.path}.meta`]);
  if (entry && 'stamp' in entry && entry.stamp === stamp) return;
  const opened = await openSession(session.path);
  const read = await opened.read();
  const described: IndexedSession = {
    ...session,
    title: read.projection.title ?? null,
    workspace: workspaceOf(read) ?? null,
    status: read.status === 'turn-refused' ? 'turn-refused' : 'ok',
  };
  let records: RecordChange[] = [removedSession(session.id)];
  const given = (last: boolean): IndexPiece => {
    // The entry moves only with the last piece: a run stopped before it reads the transcript again.
    if (last) entries.set(session.path, { path: session.path, id: session.id, store: session.store, stamp });
    const piece = { session: described, records };
    records = [];
    return piece;
  };
  for await (const record of opened.records() as AsyncIterable<IndexRecord>) {
    records.push(record);
    if (records.length >= TRANSCRIPT_PIECE) yield given(false);
  }
  yield given(true);
}

/**
 * Why a session a checkpoint holds cannot be said to be gone although this run did not find it: the root not
 * there (a disk not mounted, a home moved away), a folder on the way that is a link to nothing, or one this user
 * may not list (made by another user: a run of Reasonix with sudo); undefined when it is gone.
 */
function whyNotFound(root: string, path: string): IndexProblem | undefined {
  if (missing(root)) return notThere(root);
  let folder = root;
  for (const part of relative(root, path)
    .split(sep)
    .filter((name) => name !== '')) {
    const at = join(folder, part);
    try {
      opendirSync(folder).closeSync();
      if (lstatSync(at, { throwIfNoEntry: false }) === undefined) return undefined;
    } catch (error) {
      if (!isSystemError(error)) throw error;
      return {
        code: 'RX_FILE_SYSTEM',
        message: `${folder}: ${systemErrorInWords(error)}: the session's records are kept as they were, and removed only once the folder can be read without the session`,
        file: folder,
      };
    }
    // Something stands there (a link), and leads nowhere.
    if (!existsSync(at)) return notThere(at);
    folder = at;
  }
  return undefined;
}

function notThere(path: string): IndexProblem {
  return {
    code: 'RX_FILE_SYSTEM',
    message: `${path} is not there (removed, moved, or a disk not mounted): the session's records are kept as they were, and removed only once it is there without the session`,
    file: path,
  };
}

/** The session a checkpoint's entry names, as a piece gives it when the run does not read it: no title or workspace known. */
function sessionOfEntry(entry: CheckpointEntry): IndexedSession {
  return { id: entry.id, path: entry.path, store: entry.store, title: null, workspace: null, status: 'ok' };
}

/** Whether `path` is `root` or lies under it. */
function isWithin(path: string, root: string): boolean {
  const within = relative(root, path);
  return within === '' || (!within.startsWith('..') && !isAbsolute(within));
}

/** A records cursor with every part made (its log's digests, its filters): plain data, as JSON keeps it. */
function settledCursor(cursor: RecordsCursor): RecordsCursor {
  return { ...cursor };
}

/** A tombstone for every record of a session. */
function removedSession(sessionId: string): RecordChange {
  return { type: 'removed', key: sessionKey(sessionId), sessionId };
}

/** Whether nothing stands at `path` now (a session removed); a path that cannot be looked at is not called gone. */
function missing(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}
