import { join } from 'node:path';
import type { Database, Statement } from 'node-sqlite3-wasm';
import { RxError, WriterOwnedError } from '../errors/index.js';
import { failPoint } from '../fs/fail-point.js';
import { statOrCode } from '../fs/files-stamp.js';
import { tryOsLock, waitOsLock, type OsLock } from '../fs/os-lock.js';
import type { RecordChange } from '../session/replay/index-records.js';
import { displayTitle } from '../session/replay/session-title.js';
import { documentIdsOf, SESSION_OF_DOCUMENT } from './document-ids.js';
import { asIndexed, documentsOf, indexedText, type SearchDocument } from './documents.js';
import { indexSteps, type IndexJob, type IndexStep } from './index-steps.js';
import { IndexReaders, ReaderThreadLost } from './index-readers/index-readers.js';
import { makeCacheFolder } from '../fs/cache-folder.js';
import {
  engineErrorSaid,
  IndexConnection,
  outOfMemorySaid,
  refuseFilesNotOurs,
  removeIndexFiles,
  type IndexSchema,
  type KnownSession,
  type Row,
} from './index-connection.js';
import {
  contentChanged,
  contentStampOf,
  ContentStampSchema,
  type ContentStamp,
} from '../store/listing/content-stamp.js';
import type { SearchSource } from './search-sources.js';
import { placeOf, PLACES_SQL, SessionPlaces } from './session-places.js';

/**
 * Bumped whenever what the index keeps changes: an index of another version is built again. 11: a key written twice
 * is applied as Go applies it, a history holding one message id twice keeps every message, a transcript's title
 * is its `.jsonl.meta` as Go reads it, a transcript message's legacy id hashes its raw fields' texts as written, and a submission receipt is
 * checked as Reasonix checks it (a session's damage). 12: a key holding a dot is no integer field inside another (a
 * session's damage, a transcript's title). 13: a time holding an escape is refused, as Go parses it as written.
 * 14: a payload reference's size is an int64, and header.json's version is checked before its values. 15: the
 * storage identity is read as Go reads it. 16: the workspace line's path is unquoted as Go quoted it. 17: a repeated
 * record no checkpoint goes on past. 18: a recovery cache ahead of the log refuses by the operations it holds. 19: a
 * zstd frame declaring a window over 8 MiB is damage. 20: a content store's own folder may be a link. 22: a call a
 * records read gave past its bounds takes its result when it comes in the same batch (it was paired with another).
 * 23: the trigram index holds each text with its runs of white space made one space (`indexedText`), the texts
 * themselves kept apart: a phrase narrows whole. 24: any tool's arguments are searched by their strings, unescaped, each apart,
 * as shell and file tools' were (a generic call's were its JSON text); letters JavaScript takes for others FTS5 does
 * not fold them into are held as those (`asIndexed`); a session whose first typed message went is called by the next.
 * 25: what reads as a torn tail before a recovery checkpoint's anchor is damage, indexed up to it and said.
 */
const INDEX_VERSION = 25;
/** Documents, and sessions, written in one transaction: a commit syncs the file, so a build commits in large steps. */
const DOCUMENTS_PER_COMMIT = 20_000;
const SESSIONS_PER_COMMIT = 100;
/**
 * An update reads sessions on a thread of its own from this many sessions holding this many bytes to read, or
 * for one long read (`LONG_READ_BYTES`): below that the thread's start (loading rxstore there, a third of a
 * second, which the sessions it is first given wait for) costs more than it saves. Nine sessions of a few
 * kilobytes were read in half a second with the thread, a tenth of that without, and thirty of 20 MB in all
 * no faster with it; an update after one batch must stay as quick as a warm `ls`.
 */
const THREAD_MIN_SESSIONS = 8;
const THREAD_MIN_BYTES = 32 * 1024 * 1024;
/**
 * A read of this many bytes or more is long: it goes to the reader thread, its FTS5 work here and its reading
 * there done at once (a 1 GiB session's build took 65 s where it took 100 s), and the update's own thread, while
 * it waits, never takes one up itself: it would write nothing else until that read was done.
 */
const LONG_READ_BYTES = 16 * 1024 * 1024;

/** Sessions the reader thread is asked for and not yet written. */
const SESSIONS_AHEAD = 8;

/** A session as the index knows it. */
export interface IndexedSession {
  path: string;
  id: string;
  store: SearchSource['store'];
  workspace: string | null;
  /** What the session is called, as `ls` calls it: its own title, else its first typed message. */
  title: string | null;
  damage: string | null;
}

/** What the index keeps of a session besides its records: its own title, workspace, and first typed message (with that record's key). */
interface SessionFields {
  title: string | null;
  workspace: string | null;
  preview: string | null;
  previewKey: string | null;
}

/** A document read back from the index, with the session it belongs to and its score. */
export interface IndexedDocument extends SearchDocument {
  path: string;
  score: number;
}

/** What the index is asked for: the phrases that narrow it, how to check and score what it does not decide, and the filters. */
export interface IndexSearch {
  /**
   * Words and phrases every hit holds, a phrase's words one space apart. Each of three characters or more
   * narrows by the trigram index (which ignores case, and holds each run of white space as one space).
   */
  phrases: readonly string[];
  /** Whether a text holds the whole query as one phrase: it then ranks first. None for a query of one word. */
  whole?: (text: string) => boolean;
  /**
   * Where the index alone does not decide (a short word, a capital, a pattern): a document's score,
   * or null when it does not match. Its score ranks only when no phrase narrows.
   */
  check?: (text: string, path: string) => number | null;
  kinds?: readonly string[];
  tool?: string;
  /** Only documents of these sessions. */
  paths?: readonly string[];
  /** ISO times: at or after, before. */
  since?: string;
  until?: string;
  limit?: number;
}

/**
 * A phrase longer than this narrows the index by this many of its characters alone (`narrowingPiece`), the text
 * checked for the rest:
 * FTS5 matches a phrase as a chain of its trigrams, in time and memory that grow with it (one of 48 KB, pasted
 * from a log, ran a search out of memory), while the first hundred characters of a phrase leave few texts.
 */
const NARROWING_CHARACTERS = 100;

/**
 * Letters whose case FTS5 folds as JavaScript's `iu` does: Latin, Greek, Cyrillic, Armenian, the letterlike
 * symbols, fullwidth Latin and Deseret. Its Unicode data is older than JavaScript's: it does not fold Georgian's
 * capitals, Cherokee's small letters, Osage, Adlam, Ϳ or Ԩ–Ԯ, among others, and a text holding those in the other
 * case would be left out by the index.
 */
const FOLDED_ALIKE =
  /^[\u0000-\u036f\u0370-\u037e\u0380-\u03f2\u03f4-\u0527\u0530-\u058f\u1e00-\u1fff\u2100-\u214f\uff21-\uff5a\u{10400}-\u{1044f}]$/u;

/** Whether the index folds a character's case as JavaScript does: it has none, or it and its cases are letters of `FOLDED_ALIKE`. */
function foldsAlike(char: string): boolean {
  const [lower, upper] = [char.toLowerCase(), char.toUpperCase()];
  if (lower === upper) return true;
  return [...char, ...lower, ...upper].every((each) => FOLDED_ALIKE.test(each));
}

/**
 * What a phrase narrows the index by: its longest stretch of characters whose case the index folds as
 * JavaScript does, cut to its first `NARROWING_CHARACTERS`; undefined when none has three characters (a
 * trigram's). Any stretch of a phrase lies whole in a text that holds it, the index holding white space as the
 * phrase joins its words.
 */
function narrowingPiece(phrase: string): string | undefined {
  const chars = [...phrase];
  let [longest, length, start] = [0, 0, 0];
  chars.forEach((char, at) => {
    if (!foldsAlike(char) || char === '\0') start = at + 1;
    else if (at + 1 - start > length) [longest, length] = [start, at + 1 - start];
  });
  const piece = chars
    .slice(longest, longest + Math.min(length, NARROWING_CHARACTERS))
    .join('')
    .trim();
  return [...piece].length >= 3 ? piece : undefined;
}

/**
 * Whether the index alone decides that a text holds a phrase (or a word), as it ignores case: one it narrows by
 * whole (three characters or more, a trigram's, and not past `NARROWING_CHARACTERS`), whose case it folds as
 * JavaScript does, with no NUL (FTS5 reads a query up to one).
 */
export function indexDecides(phrase: string): boolean {
  return narrowingPiece(phrase) === phrase;
}

const SCHEMA: IndexSchema = {
  version: INDEX_VERSION,
  sql: `
create table if not exists sessions(path text primary key, id text not null, store text not null, workspace text, title text, preview text, preview_key text, stamp text not null, log_line text, log_size integer, content text, cursor text, damage text);
create table if not exists docs(id integer primary key, path text not null, rkey text not null, kind text not null, role text not null, tool text, exit_code integer, message_id text, time text not null);
create index if not exists docs_by_key on docs(path, rkey);
create table if not exists docs_body(id integer primary key, text text not null);
create virtual table if not exists docs_text using fts5(text, content = 'docs_body', content_rowid = 'id', tokenize = 'trigram');
${PLACES_SQL}`,
};

/**
 * The search index: an SQLite file (FTS5, trigram tokenizer) in the user's cache folder, readable
 * only by the user, with a lock file beside it. Whoever holds the lock updates the index and reads
 * it; every session's changes are committed with the cursor they bring the session to, so an index
 * cut short by a crash resumes from what it committed, and SQLite's journal takes back half a commit.
 */
export class SearchIndex {
  /** While `update` reads sessions: what its open transaction holds. */
  private batch: { documents: number; sessions: number } | undefined;
  private readonly db: Database;

  private constructor(
    private readonly connection: IndexConnection,
    private readonly lock: OsLock | undefined,
  ) {
    this.db = connection.db;
  }

  /**
   * Opens (creating) the index in `cacheDir`, waiting for the lock another search holds (`onWaiting` is
   * told once, when it does), for five minutes at most.
   */
  static async open(cacheDir: string, onWaiting?: () => void): Promise<SearchIndex> {
    makeCacheFolder(cacheDir, 'the index');
    const file = join(cacheDir, 'search-index.sqlite');
    const lockFile = join(cacheDir, 'search-index.lock');
    refuseFilesNotOurs([lockFile]);
    // Another search builds the index: wait for it (a first build of thousands of sessions takes a while).
    let lock = await tryOsLock(lockFile);
    if (!lock) {
      onWaiting?.();
      lock = await waitOsLock(lockFile, 6_000, 50);
    }
    if (!lock)
      throw new WriterOwnedError(
        `the search index in ${cacheDir} stayed locked by another rxstore search; try again once it is done`,
        { file: lockFile },
      );
    try {
      return new SearchIndex(await IndexConnection.open(file, SCHEMA), lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** An index in memory, for one search straight from the stores: the same tables, the same SQL, nothing kept. */
  static async inMemory(): Promise<SearchIndex> {
    return new SearchIndex(await IndexConnection.inMemory(SCHEMA), undefined);
  }

  /**
   * Lets the index go (and its lock): its connection is kept for the next search in this process,
   * unless the search `failed`; a `damaged` index file (SQLite's error) is removed first, while the
   * lock is held, to be built again.
   */
  async close(failed = false, damaged = false): Promise<void> {
    try {
      this.connection.release(failed || damaged);
      const file = this.connection.file;
      if (damaged && file !== undefined) removeIndexFiles(file);
    } finally {
      await this.lock?.release();
    }
  }

  /** SQLite's `error` about this index, coded and naming its file. */
  engineErrorSaid(error: unknown): RxError {
    return engineErrorSaid(error, this.connection.file ?? ':memory:');
  }

  /**
   * Brings the index up to the sessions given: an unchanged one costs a stat (and one of each
   * content-store file its records came from); a log that grew is read from its cursor; a
   * transcript that changed, a log that changed without growing (rewritten in place, where the
   * cursor's digests do not reach), a log rewritten under its cursor, or a session one of whose
   * content-store files changed, is read again from the start; a session no longer there is
   * dropped. Told after each session read. `contentUnchanged`: no content-store file changed since the
   * index's stamps of them were last checked (a watch says so), so none is looked at.
   */
  async update(
    sources: readonly SearchSource[],
    onProgress?: (done: number, total: number) => void,
    beforeReading?: () => void,
    /** Starts the reader thread for the sessions to read, when they are worth one (a test gives one that dies, or none). */
    startReaders: (reads: readonly SessionRead[]) => IndexReaders | undefined = readersIfWorthIt,
    contentUnchanged = false,
  ): Promise<void> {
    // The content stamps were checked as this connection holds them: an index file another hand put back (an older
    // copy) is opened anew, its stamps read again, and checked.
    const contentChecked = contentUnchanged && this.connection.stamps !== undefined;
    const known = this.stamps();
    const wanted = new Set(sources.map((source) => source.path));
    const gone = [...known.keys()].filter((path) => !wanted.has(path));
    const stale = sources.flatMap((source): StaleSession[] => {
      const before = known.get(source.path);
      const change = changeOf(before, source, contentChecked);
      if (change === 'none') return [];
      const fromStart = change === 'read-again';
      return [{ source, fromStart, bytes: bytesToRead(source, fromStart ? undefined : before) }];
    });
    if (gone.length === 0 && stale.length === 0) return;
    // Read again once written.
    this.connection.stamps = undefined;
    if (gone.length > 0) this.transaction(() => gone.forEach((path) => this.dropSession(path)));
    let done = 0;
    if (stale.length === 0) return;
    beforeReading?.();
    // Sessions are committed together (a commit syncs the file, tens of milliseconds on a busy disk),
    // each with the cursor it reached: a crash loses only what the open transaction held, read again next time.
    this.connection.beginWrite();
    this.batch = { documents: 0, sessions: 0 };
    const jobOf = ({ source, fromStart }: StaleSession): IndexJob => {
      const cursor = fromStart
        ? undefined
        : (this.db.get('select cursor from sessions where path = ?', [source.path]) as Row | null)?.cursor;
      return { source, cursor: typeof cursor === 'string' ? cursor : null };
    };
    const write = async ({ source, fromStart }: StaleSession, job: IndexJob, steps: AsyncIterable<IndexStep>) => {
      const content = fromStart || job.cursor === null ? [] : (known.get(source.path)?.content?.files ?? []);
      await this.indexSession(source, job.cursor, content, steps);
      this.batch!.sessions += 1;
      this.commitPoint();
      onProgress?.((done += 1), stale.length);
    };
    // Sessions are written as they are read, in any order: the reader thread is asked for them in order,
    // and their steps written in the order asked; while it has none ready, a short read is made here.
    const waiting = [...stale];
    const onThread: { session: StaleSession; job: IndexJob; id: number }[] = [];
    let readers = startReaders(stale);
    this.connection.cacheFor('writing');
    try {
      while (waiting.length > 0 || onThread.length > 0) {
        while (readers && onThread.length < SESSIONS_AHEAD && waiting.length > 0) {
          const session = waiting.shift()!;
          const job = jobOf(session);
          onThread.push({ session, job, id: readers.ask(job) });
        }
        const first = onThread[0];
        const here = !readers || !first ? waiting.shift() : !readers.ready(first.id) ? takeShort(waiting) : undefined;
        if (here) {
          const job = jobOf(here);
          await write(here, job, indexSteps(job));
          continue;
        }
        onThread.shift();
        try {
          await write(first!.session, first!.job, readers!.steps(first!.id));
        } catch (error) {
          if (!(error instanceof ReaderThreadLost)) throw error;
          readers = undefined;
          // What the thread wrote of it is dropped as it is read again here, from the start; the rest are read here.
          const again = { source: first!.session.source, cursor: null };
          await write(first!.session, again, indexSteps(again));
          waiting.unshift(...onThread.splice(0).map(({ session }) => session));
        }
      }
      this.db.exec('commit');
    } catch (error) {
      rollBack(this.db);
      throw outOfMemorySaid(error);
    } finally {
      this.batch = undefined;
      readers?.end();
      this.connection.cacheFor('reading');
    }
  }

  /** What the index knows of each session's files, by path: read once, then kept with the connection (`IndexConnection.stamps`). */
  private stamps(): Map<string, KnownSession> {
    if (this.connection.stamps) return this.connection.stamps;
    // Stamps only: a cursor is read for a session that changed.
    const byPath = new Map<string, KnownSession>();
    for (const row of this.db.all('select path, stamp, log_line, log_size, content, damage from sessions') as Row[])
      byPath.set(String(row.path), {
        stamp: String(row.stamp),
        log: row.log_line === null ? null : { line: String(row.log_line), size: Number(row.log_size) },
        content: row.content === null ? null : keptContent(String(row.content)),
        damage: row.damage === null ? null : String(row.damage),
      });
    this.connection.stamps = byPath;
    return byPath;
  }

  /** The content-store files the index's sessions were read from (what their stamps stat). */
  contentFiles(): string[] {
    return [...this.stamps().values()].flatMap((known) => known.content?.files ?? []);
  }

  /** Within a batch: commits, and begins the next, once it holds enough sessions or documents. */
  private commitPoint(): void {
    if (!this.batch || (this.batch.sessions < SESSIONS_PER_COMMIT && this.batch.documents < DOCUMENTS_PER_COMMIT))
      return;
    this.db.exec('commit');
    failPoint('index.committed');
    this.connection.beginWrite();
    this.batch = { documents: 0, sessions: 0 };
  }

  /**
   * Runs reads in one read transaction: the WASM build's file lock (a directory made and removed)
   * is then taken once, not once per statement.
   */
  reading<T>(work: () => T): T {
    this.db.exec('begin');
    let result: T;
    try {
      result = work();
    } catch (error) {
      // SQLite takes back the transaction itself on some errors (out of memory): the error is the work's, never the end's.
      rollBack(this.db);
      throw outOfMemorySaid(error);
    }
    this.db.exec('commit');
    return result;
  }

  /** The sessions read only up to damage: the damage in words, by path. */
  damaged(): Map<string, string> {
    return new Map(
      [...this.stamps()].flatMap(([path, { damage }]) => (damage === null ? [] : [[path, damage] as const])),
    );
  }

  /**
   * The sessions indexed, by path: all of them, or those of `paths`. An untitled one is called by
   * the preview `previews` gives for it (a transcript's meta), else by the first message typed.
   */
  sessions(paths?: readonly string[], previews?: ReadonlyMap<string, string | null>): Map<string, IndexedSession> {
    const sessions = new Map<string, IndexedSession>();
    const rows = (
      paths === undefined
        ? this.db.all('select path, id, store, workspace, title, preview, damage from sessions')
        : this.db.all(
            'select path, id, store, workspace, title, preview, damage from sessions where path in (select value from json_each(?))',
            [JSON.stringify(paths)],
          )
    ) as Row[];
    for (const row of rows) {
      sessions.set(String(row.path), {
        path: String(row.path),
        id: String(row.id),
        store: String(row.store) as IndexedSession['store'],
        workspace: row.workspace === null ? null : String(row.workspace),
        title: displayTitle(
          row.title === null ? null : String(row.title),
          previews?.get(String(row.path)) ?? (row.preview === null ? null : String(row.preview)),
        ).title,
        damage: row.damage === null ? null : String(row.damage),
      });
    }
    return sessions;
  }

  /**
   * The documents that match, ranked in SQL and cut to `limit` there: the whole query as a phrase
   * first, then BM25 (FTS5's bm25() when the index narrows, else `check`'s score), lifted by the log
   * of how many hits their session has (counted from the documents' ids). A hit's row is read only
   * where a filter needs it, and for the order's ties only at the cut: texts are read back only for
   * the documents returned.
   */
  find(asked: IndexSearch): IndexedDocument[] {
    const params: unknown[] = [];
    const where: string[] = [];
    // Each piece quoted, its quotes doubled: FTS5 reads it as a string, never as its syntax. The index holds
    // each run of white space as one space, as a phrase joins its words: a phrase narrows whole, or by a piece
    // of it (`narrowingPiece`).
    const quoted = (piece: string) => `"${piece.replaceAll('"', '""')}"`;
    const narrowing = asked.phrases
      .map(narrowingPiece)
      .filter((piece): piece is string => piece !== undefined)
      .map(asIndexed);
    let from = 'docs d join docs_body b on b.id = d.id';
    let base = 'rx_check(b.text, d.path)';
    let rowsRead = true;
    if (narrowing.length > 0) {
      where.push('docs_text match ?');
      params.push(narrowing.map(quoted).join(' '));
      base = '-bm25(docs_text)';
      if (asked.check) where.push('rx_check(b.text, d.path) is not null');
      // The documents' own rows only where a filter or the check reads them, their texts only where read.
      rowsRead =
        asked.check !== undefined ||
        (asked.kinds !== undefined && asked.kinds.length > 0) ||
        asked.tool !== undefined ||
        asked.paths !== undefined ||
        asked.since !== undefined ||
        asked.until !== undefined;
      from = rowsRead ? 'docs_text t join docs d on d.id = t.rowid' : 'docs_text t';
      if (asked.check || asked.whole) from += ' join docs_body b on b.id = t.rowid';
    } else if (!asked.check) throw new Error('a search the index does not narrow needs a check');
    if (asked.kinds && asked.kinds.length > 0) {
      where.push(`d.kind in (${asked.kinds.map(() => '?').join(', ')})`);
      params.push(...asked.kinds);
    }
    if (asked.tool !== undefined) {
      // Whatever its case (ASCII's, as tool names are written): `--tool Bash` means the tool Reasonix calls bash.
      where.push('d.tool = ? collate nocase');
      params.push(asked.tool);
    }
    if (asked.paths !== undefined) {
      where.push('d.path in (select value from json_each(?))');
      params.push(JSON.stringify(asked.paths));
    }
    if (asked.since !== undefined) {
      where.push('d.time >= ?');
      params.push(asked.since);
    }
    if (asked.until !== undefined) {
      where.push('d.time < ?');
      params.push(asked.until);
    }
    // A query of one word has no whole to rank by: every hit holds it.
    const whole = asked.whole ? 'rx_whole(b.text)' : '0';
    const order = 'r.whole desc, r.score desc, d.time desc, d.path, d.rkey, d.kind';
    // A limit past 2^53 keeps every hit there can be (SQLite takes no larger number for one).
    const limit = asked.limit !== undefined && Number.isSafeInteger(asked.limit) ? asked.limit : undefined;
    // With a limit, the rows ordered whole (their ties broken by time, path, key) are those at or above the
    // cut's score: the last kept by score alone.
    const atCut =
      limit === undefined
        ? ''
        : `, cut as (
      select whole, score from scored order by whole desc, score desc limit 1 offset ?
    )`;
    const aboveCut =
      limit === undefined
        ? ''
        : 'where not exists (select 1 from cut) or (r.whole, r.score) >= (select whole, score from cut)';
    // Scores keep six significant digits, not a number of decimals: a word in more than half of the texts
    // has BM25's least weight (10^-6), and rounded to decimals every text holding it would score 0.
    const sql = `with hits as materialized (
      select ${rowsRead ? 'd.id' : 't.rowid as id'}, ${base} as base, ${whole} as whole
      from ${from} where ${where.length > 0 ? where.join(' and ') : '1'}
    ), counts as materialized (
      select ${SESSION_OF_DOCUMENT('id')} as session, count(*) as hits from hits where base is not null group by 1
    ), scored as materialized (
      select h.id, h.whole, cast(printf('%.6g', h.base * (1 + ln(c.hits))) as real) as score
      from hits h join counts c on c.session = ${SESSION_OF_DOCUMENT('h.id')} where h.base is not null
    )${atCut}, ranked as (
      select r.id, r.whole, r.score from scored r join docs d on d.id = r.id ${aboveCut}
      order by ${order}${limit === undefined ? '' : ' limit ?'}
    )
    select d.*, r.score, b.text from ranked r join docs d on d.id = r.id join docs_body b on b.id = r.id order by ${order}`;
    this.connection.checks.check = asked.check;
    this.connection.checks.whole = asked.whole;
    const rows = this.cached(sql).all([
      ...params,
      ...(limit === undefined ? [] : [limit - 1, limit]),
    ] as never) as Row[];
    return rows.map((row) => ({ ...documentOf(row), score: Number(row.score) }));
  }

  /** Where a message sits among those a person reads in its session (what `cat` numbers it, from 0), kept as the session was read; null when nowhere. */
  placeOf(path: string, messageId: string): number | null {
    return placeOf((sql) => this.cached(sql), path, messageId);
  }

  /** The file documents (a path a turn touched) of every session. */
  fileDocuments(): IndexedDocument[] {
    return (
      this.db.all("select d.*, b.text from docs d join docs_body b on b.id = d.id where d.kind = 'file'") as Row[]
    ).map((row) => ({ ...documentOf(row), score: 0 }));
  }

  /**
   * Writes a session's steps into the index (`indexSteps`): read from its cursor, with
   * `contentFiles`, those the records read before it came from, or from the start.
   */
  private async indexSession(
    source: SearchSource,
    cursor: string | null,
    contentFiles: readonly string[],
    steps: AsyncIterable<IndexStep>,
  ): Promise<void> {
    const content = new Set(contentFiles);
    let fields = (cursor !== null && this.fieldsOf(source.path)) || noFields(source);
    // The transcript's writes, kept with the records and the cursor they came with: hits are placed from them.
    const places = new SessionPlaces((sql) => this.cached(sql), source.path);
    // Only this session's documents are written until it is done: its ids are taken on from the first.
    let nextId = documentIdsOf((sql) => this.cached(sql), source.path);
    for await (const step of steps) {
      if (step.type === 'restart') {
        fields = noFields(source);
        content.clear();
        nextId = documentIdsOf((sql) => this.cached(sql), source.path);
        this.transaction(() => {
          this.dropSession(source.path);
          places.restart();
        });
      } else if (step.type === 'unopenable') {
        nextId = documentIdsOf((sql) => this.cached(sql), source.path);
        this.transaction(() => {
          this.dropSession(source.path);
          this.putSession(source, null, noFields(source), undefined, step.damage, true);
        });
      } else if (step.type === 'write') {
        if (this.batch) this.batch.documents += step.records.length;
        for (const says of step.says) fields = { ...fields, ...says };
        for (const file of step.contentFiles) content.add(file);
        this.transaction(() => {
          // Whether the message the session is called by went: the first typed one left is then looked for.
          let previewTaken = false;
          for (const change of step.records) {
            this.apply(source.path, change, nextId);
            const before = fields.previewKey;
            fields = withPreview(fields, change);
            if (before !== null && fields.previewKey === null) previewTaken = true;
          }
          for (const write of step.writes) places.write(write);
          if (previewTaken) fields = { ...fields, ...this.firstPreview(source.path) };
          this.putSession(source, step.cursor, fields, contentStampOf([...content]), null, false);
        });
        this.commitPoint();
      } else {
        // Read to its end (or its damage): its stamp now says the index holds it as listed. A log that changed
        // under each read is said so by this search, and kept with no stamp: the next reads it again.
        this.db.run('update sessions set damage = ?, stamp = ? where path = ?', [
          step.damage,
          step.changing ? '' : source.stamp,
          source.path,
        ]);
      }
    }
  }

  /**
   * What a session is called by when it has no title, as `ls` calls it: its first typed message that makes a title,
   * in the order its transcript holds them (a message rewritten later keeps its place there, not its new row's).
   */
  private firstPreview(path: string): Pick<SessionFields, 'preview' | 'previewKey'> {
    // Read a row at a time, up to the first that makes a title: a session's typed messages may be many.
    const typed = this.cached(
      `select d.rkey, b.text from docs d join docs_body b on b.id = d.id
      left join places p indexed by places_by_id on p.path = d.path and p.message_id = d.message_id
      where d.path = ? and d.kind = 'user' order by p.pos is null, p.pos, d.id`,
    ).iterate([path]) as Iterable<Row>;
    for (const row of typed) {
      const preview = displayTitle(null, String(row.text)).title;
      if (preview !== null) return { preview, previewKey: String(row.rkey) };
    }
    return { preview: null, previewKey: null };
  }

  private fieldsOf(path: string): SessionFields | undefined {
    const row = this.db.get('select title, workspace, preview, preview_key from sessions where path = ?', [
      path,
    ]) as Row | null;
    const text = (value: Row[string] | undefined) => (value === null || value === undefined ? null : String(value));
    return row
      ? {
          title: text(row.title),
          workspace: text(row.workspace),
          preview: text(row.preview),
          previewKey: text(row.preview_key),
        }
      : undefined;
  }

  /** A session as read so far: its files as listed before the read (`source`), and the content files its records came from. */
  private putSession(
    source: SearchSource,
    cursor: string | null,
    fields: SessionFields,
    content: ContentStamp | undefined,
    damage: string | null,
    /**
     * Whether the read is over. Until it is, the session keeps no stamp: a build cut short (a kill, a crash) after a
     * commit part way through a long session would otherwise hold it as unchanged, and never read the rest.
     */
    done: boolean,
  ): void {
    this.db.run(
      'insert or replace into sessions(path, id, store, workspace, title, preview, preview_key, stamp, log_line, log_size, content, cursor, damage) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        source.path,
        source.id,
        source.store,
        fields.workspace ?? source.workspace,
        fields.title,
        fields.preview,
        fields.previewKey,
        done ? source.stamp : '',
        source.log?.line ?? null,
        source.log?.size ?? null,
        content === undefined ? null : JSON.stringify(content),
        cursor,
        damage,
      ],
    );
  }

  /** A record adds or replaces the documents of its key; a removal takes its key and every key under it (the empty key: all). */
  private apply(path: string, change: RecordChange, nextId: () => number): void {
    const key = change.key;
    const under = `${key}/`;
    const ids =
      change.type === 'removed' && key === ''
        ? (this.cached('select id from docs where path = ?').all([path]) as Row[])
        : change.type === 'removed'
          ? (this.cached('select id from docs where path = ? and (rkey = ? or substr(rkey, 1, ?) = ?)').all([
              path,
              key,
              under.length,
              under,
            ]) as Row[])
          : (this.cached('select id from docs where path = ? and rkey = ?').all([path, key]) as Row[]);
    for (const { id } of ids) this.dropDocument(id!);
    if (change.type === 'removed') return;
    for (const document of documentsOf(change)) {
      const id = nextId();
      this.cached(
        'insert into docs(id, path, rkey, kind, role, tool, exit_code, message_id, time) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run([
        id,
        path,
        document.recordKey,
        document.kind,
        document.role,
        document.tool,
        document.exitCode,
        document.messageId,
        document.time,
      ]);
      this.cached('insert into docs_body(id, text) values (?, ?)').run([id, document.text]);
      this.cached('insert into docs_text(rowid, text) values (?, ?)').run([id, indexedText(document.text)]);
    }
  }

  /** A statement prepared once for the life of the index: the build runs a few of them for every record. */
  private cached(sql: string): Statement {
    return this.connection.statement(sql);
  }

  /**
   * Forgets sessions a whole read found damaged where the index holds none (bytes damaged behind a
   * cursor a log grew from): the next update reads them again from the start.
   */
  forget(paths: readonly string[]): void {
    this.transaction(() => {
      for (const path of paths) this.dropSession(path);
    });
    // The stamps kept with the connection still hold them: left so, the update would find them unchanged.
    this.connection.stamps = undefined;
  }

  /** A document's row, text and trigrams: FTS5 takes a text out of its index given the text it put in. */
  private dropDocument(id: NonNullable<Row[string]>): void {
    const body = this.cached('select text from docs_body where id = ?').get([id]) as Row | null;
    if (body !== null)
      this.cached("insert into docs_text(docs_text, rowid, text) values ('delete', ?, ?)").run([
        id,
        indexedText(String(body.text)),
      ]);
    this.cached('delete from docs_body where id = ?').run([id]);
    this.cached('delete from docs where id = ?').run([id]);
  }

  private dropSession(path: string): void {
    // One delete per row: FTS5 answers \`rowid in (…)\` by walking every text it holds.
    for (const { id } of this.cached('select id from docs where path = ?').all([path]) as Row[]) this.dropDocument(id!);
    this.db.run('delete from sessions where path = ?', [path]);
    this.db.run('delete from places where path = ?', [path]);
  }

  private transaction(work: () => void): void {
    // Inside a batch the batch's transaction holds the work; it commits at the batch's next commit point.
    if (this.batch) {
      work();
      return;
    }
    this.connection.beginWrite();
    try {
      work();
      this.db.exec('commit');
    } catch (error) {
      rollBack(this.db);
      throw error;
    }
  }
}

/**
 * Rolls back the transaction a failed write leaves, if SQLite has not: on a full disk or an I/O error it
 * rolls back itself, and a `rollback` then would throw in place of the error that said why.
 */
function rollBack(db: Database): void {
  if (db.inTransaction) db.exec('rollback');
}

function documentOf(row: Row): Omit<IndexedDocument, 'score'> {
  return {
    path: String(row.path),
    recordKey: String(row.rkey),
    kind: String(row.kind) as IndexedDocument['kind'],
    role: String(row.role) as IndexedDocument['role'],
    tool: row.tool === null ? null : String(row.tool),
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    messageId: row.message_id === null ? null : String(row.message_id),
    time: String(row.time),
    text: row.text === undefined ? '' : String(row.text),
  };
}

/** A session to read into the index, and the bytes its read takes in (`bytesToRead`). */
export interface SessionRead {
  source: SearchSource;
  bytes: number;
}

/** A session an update reads: from its cursor, or from the start. */
interface StaleSession extends SessionRead {
  fromStart: boolean;
}

/**
 * The bytes a session's read takes in: what its log grew by since the index read it (`before`, for a log read
 * on from its cursor), else its whole log or transcript.
 */
function bytesToRead(source: SearchSource, before: KnownSession | undefined): number {
  if (source.log !== null) return Math.max(0, source.log.size - (before?.log?.size ?? 0));
  const size = statOrCode(source.path);
  return typeof size === 'string' ? 0 : Number(size.size);
}

/** Takes the first session of `waiting` whose read is short (`LONG_READ_BYTES`); undefined when none is. */
function takeShort(waiting: StaleSession[]): StaleSession | undefined {
  const at = waiting.findIndex(({ bytes }) => bytes < LONG_READ_BYTES);
  return at < 0 ? undefined : waiting.splice(at, 1)[0];
}

/** A reader thread, when the sessions to read are worth one (`worthAThread`). */
function readersIfWorthIt(reads: readonly SessionRead[]): IndexReaders | undefined {
  return worthAThread(reads) ? IndexReaders.start() : undefined;
}

/** Whether the reads are long enough, or many enough and of enough bytes, for a thread to pay for its start. */
function worthAThread(reads: readonly SessionRead[]): boolean {
  if (reads.some(({ bytes }) => bytes >= LONG_READ_BYTES)) return true;
  return reads.length >= THREAD_MIN_SESSIONS && reads.reduce((sum, { bytes }) => sum + bytes, 0) >= THREAD_MIN_BYTES;
}

/**
 * How a session changed since the index read it: not at all (its stamp, and its content files'
 * stamp, say the same); grown (`read-on`: from its cursor); or otherwise (`read-again`: from the
 * start): new to the index, a content-store file its records came from changed, or its log changed
 * without growing past the size it had: rewritten in place, where a cursor's digests (the log's
 * first bytes, those just before the cursor) do not reach.
 */
function changeOf(
  known: KnownSession | undefined,
  source: SearchSource,
  contentUnchanged: boolean,
): 'none' | 'read-on' | 'read-again' {
  if (!known) return 'read-again';
  const contentHolds =
    known.content === null || (known.content !== undefined && (contentUnchanged || !contentChanged(known.content)));
  if (!contentHolds) return 'read-again';
  if (known.stamp === source.stamp) return 'none';
  const { log } = known;
  if (log !== null && source.log !== null && source.log.line !== log.line && source.log.size <= log.size)
    return 'read-again';
  return 'read-on';
}

/** A content stamp kept in the index, checked; undefined when it does not parse (the session is read again). */
function keptContent(text: string): ContentStamp | undefined {
  try {
    const parsed = ContentStampSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A session's fields before any of its records is read. */
function noFields(source: SearchSource): SessionFields {
  return { title: null, workspace: source.workspace, preview: null, previewKey: null };
}

/**
 * The fields after a change: the first message the person typed is the session's preview (what an
 * untitled session is called, as in `ls`); taken back, the next one typed becomes it.
 */
function withPreview(fields: SessionFields, change: RecordChange): SessionFields {
  if (change.type === 'removed') {
    const key = fields.previewKey;
    const taken = key !== null && (change.key === '' || key === change.key || key.startsWith(`${change.key}/`));
    return taken ? { ...fields, preview: null, previewKey: null } : fields;
  }
  if (fields.preview !== null || change.type !== 'message' || change.role !== 'user') return fields;
  // Kept as the title it makes (cut to a line), never the whole message.
  const preview = displayTitle(null, change.text).title;
  return preview === null ? fields : { ...fields, preview, previewKey: change.key };
}
