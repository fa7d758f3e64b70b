import { chmodSync, closeSync, openSync, readSync, rmdirSync, statfsSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database, Statement } from 'node-sqlite3-wasm';
import {
  FileSystemError,
  NotRegularFileError,
  OverwriteRefusedError,
  RxError,
  TooLargeError,
  undefinedIfMissing,
} from '../errors/index.js';
import { FILE_MODE } from '../fs/atomic-write.js';
import { statLine, statOrCode } from '../fs/files-stamp.js';
import { kindInWords } from '../fs/path-kind.js';
import { notOurs } from '../fs/not-ours.js';
import { lstatOrUndefined } from '../fs/stat-or-undefined.js';
import type { ContentStamp } from '../store/listing/content-stamp.js';
import type { SourceLog } from './search-sources.js';

type Sqlite = typeof import('node-sqlite3-wasm');

/**
 * SQLite's page cache, KiB. Reading, the whole index while it is open: a search reads pages once, however many
 * it looks at. Writing (an update), half that: a 1 GiB session's build, read on the reader thread while its
 * texts went into FTS5 here, filled 64 MiB of cache and peaked at 277 MiB; with 32 MiB, 245 MiB and no slower.
 */
const CACHE_KIB = { reading: 64 * 1024, writing: 32 * 1024 } as const;
let sqliteLoaded: Promise<Sqlite> | undefined;

/** SQLite is loaded (its WASM compiled) by the first search: a command that does not search never pays for it. */
function loadSqlite(): Promise<Sqlite> {
  sqliteLoaded ??= import('node-sqlite3-wasm').then((loaded) => (loaded as { default: Sqlite }).default ?? loaded);
  return sqliteLoaded;
}

export type Row = Record<string, string | number | bigint | null | Uint8Array>;

/** The tables an index file holds, and the version that names them. */
export interface IndexSchema {
  version: number;
  sql: string;
}

/** What the index knows of a session's files as it read them: what tells whether, and how, it changed since. */
export interface KnownSession {
  /** The session's stamp when it was read (`SearchSource.stamp`). */
  stamp: string;
  /** Its log as listed then: one whose stat changed but which did not grow is read again from the start. */
  log: SourceLog | null;
  /** The content-store files its records came from, stamped; undefined when the stamp kept does not parse (read again). */
  content: ContentStamp | null | undefined;
  /** The damage it was read up to, in words (its code first); null when it was read whole. */
  damage: string | null;
}

/** What the SQL functions `rx_check` and `rx_whole` ask, for the search that runs now. */
export interface RowChecks {
  check?: (text: string, path: string) => number | null;
  whole?: (text: string) => boolean;
}

/**
 * An open SQLite connection to the search index, with its prepared statements. The one to the
 * index file is kept open between searches of this process (a second search compiles nothing and
 * reads no page again), and used only by whoever holds the index's lock file. It holds SQLite's own
 * lock (a directory the WASM build makes, whose removal can wait on a busy disk) from its first
 * statement to its close, so SQLite never looks whether another process wrote: the connection is
 * kept only while the file (and its journal) are as this process left them, by a stat of each.
 */
export class IndexConnection {
  private readonly statements = new Map<string, Statement>();
  /** What `rx_check` and `rx_whole` call: set by each search, the functions registered once. */
  readonly checks: RowChecks = {};
  /** What the index knows of each session's files, by path: read once, then kept while this connection is the only writer. */
  stamps: Map<string, KnownSession> | undefined;
  /** What a stat said of the file and its journal when this process let it go (`fileState`). */
  private leftAs: string | undefined;
  /** What a stat said of them when this search took the connection, and whether it has written since. */
  private takenAs: string | undefined;
  private wrote = false;
  /** Taken by a search and not yet released: the kept connection is then neither handed out nor closed by another. */
  private inUse = false;

  private constructor(
    readonly db: Database,
    readonly file: string | undefined,
  ) {
    db.function('rx_check', (text: unknown, path: unknown) => this.checks.check?.(String(text), String(path)) ?? null, {
      deterministic: true,
    });
    db.function('rx_whole', (text: unknown) => (this.checks.whole?.(String(text)) ? 1 : 0), { deterministic: true });
  }

  /**
   * The connection to `file`, of `schema`'s version: the one kept from an earlier search when no
   * other process touched the file since, else opened (and the file built anew when it is not a
   * readable index of this version). Call it holding the index's lock.
   */
  static async open(file: string, schema: IndexSchema): Promise<IndexConnection> {
    const sqlite = await loadSqlite();
    if (kept?.inUse) {
      // Another search of this process uses the kept connection (to an index in another folder: the lock
      // keeps two off one file): this one opens its own, closed when it is done, and leaves that one be.
      removeStaleSqliteLock(file);
      return new IndexConnection(openDatabase(sqlite, file, schema), file).taken();
    }
    if (kept !== undefined && kept.file === file && kept.leftAs === fileState(file)) return kept.taken();
    discardKept();
    removeStaleSqliteLock(file);
    kept = new IndexConnection(openDatabase(sqlite, file, schema), file);
    closeKeptOnExit();
    return kept.taken();
  }

  /** A connection to a new database in memory, of `schema`: nothing kept. */
  static async inMemory(schema: IndexSchema): Promise<IndexConnection> {
    const db = new (await loadSqlite()).Database(':memory:');
    db.exec(schema.sql);
    return new IndexConnection(db, undefined);
  }

  /** Marks the start of a search's use: what the file is now, nothing written yet. */
  private taken(): this {
    this.takenAs = this.file === undefined ? undefined : fileState(this.file);
    this.wrote = false;
    this.inUse = true;
    return this;
  }

  /** Opens a write transaction: the file then changes by this connection's hand. */
  beginWrite(): void {
    this.wrote = true;
    this.db.exec('begin immediate');
  }

  /** Sizes SQLite's page cache for what the connection does next (`CACHE_KIB`). */
  cacheFor(use: keyof typeof CACHE_KIB): void {
    this.db.exec(`pragma cache_size = -${CACHE_KIB[use]}`);
  }

  /** A statement prepared once for the life of the connection. */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  /**
   * Done with, for now: the file's connection is kept for the next search unless `failed` or a
   * transaction is still open (a search that failed midway leaves nothing half done for the next);
   * one in memory is closed. Call it before letting the lock go.
   */
  release(failed: boolean): void {
    this.inUse = false;
    this.checks.check = undefined;
    this.checks.whole = undefined;
    if (kept === this && this.file !== undefined && !failed && !this.db.inTransaction) {
      const now = fileState(this.file);
      // A file changed under a search that wrote nothing was changed by another hand (replaced, or
      // written without the lock): the pages this connection holds may no longer be the file's.
      if (this.wrote || now === this.takenAs) {
        this.leftAs = now;
        return;
      }
    }
    if (kept === this) kept = undefined;
    this.close();
  }

  private close(): void {
    for (const statement of this.statements.values()) {
      try {
        statement.finalize();
      } catch {
        // Finalizing says again what the statement's last step failed with (a malformed page, a full disk):
        // that step threw it already, and the file is closed all the same.
      }
    }
    this.statements.clear();
    // Closing rolls back what a transaction still holds, as a crash would.
    this.db.close();
  }
}

/** The connection kept between searches, to the last index file used. */
let kept: IndexConnection | undefined;
let exitHookSet = false;

function discardKept(): void {
  const connection = kept;
  kept = undefined;
  try {
    connection?.release(true);
  } catch {
    // A connection to a file removed or replaced: nothing of it is used again.
  }
}

/** The kept connection is closed when the process exits: SQLite's lock directory goes with it. */
function closeKeptOnExit(): void {
  if (exitHookSet) return;
  exitHookSet = true;
  process.once('exit', discardKept);
}

/** A stat of the index file and of its journal: another process that wrote either, replaced it or changed its mode changes it. */
function fileState(file: string): string {
  return [file, `${file}-journal`]
    .map((path) => {
      const stats = statOrCode(path);
      return typeof stats === 'string' ? `${path}\0${stats}\n` : `${statLine(path, stats)}${stats.mode}\n`;
    })
    .join('');
}

/**
 * Only a holder of the lock file opens the index or uses a connection to it, so SQLite's own lock
 * beside it, found by a holder about to open it, was left by a process that was killed or that
 * keeps a connection it will not use before it sees the file changed: it is removed, or every
 * later search would find the index locked. Anything else there fails the open, with its code.
 */
function removeStaleSqliteLock(file: string): void {
  const lock = `${file}.lock`;
  try {
    rmdirSync(lock);
  } catch {
    // None there (the usual case), or not an empty directory: looked at below.
  }
  // Anything else there is not SQLite's: every open would find the index locked, or its files under another's hand.
  const there = lstatOrUndefined(lock);
  if (there === undefined) return;
  const kind = there.isDirectory() ? 'a folder that is not empty' : kindInWords(there);
  throw new NotRegularFileError(`${lock} is ${kind}, not the lock SQLite makes beside the index; it is left as it is`, {
    file: lock,
  });
}

/**
 * Refuses a file of the index (its lock, the file, its journal) that rxstore did not make: a symbolic
 * link, a file with another name too (a hard link), or anything but a regular file. SQLite would follow
 * a link and write its tables, or a journal, into whatever it leads to, a rebuild would remove it, and
 * a lock file's link to nothing would be made where it points.
 */
export function refuseFilesNotOurs(paths: readonly string[]): void {
  for (const path of paths) {
    const kind = notOurs(path);
    if (kind === undefined) continue;
    throw new NotRegularFileError(`${path} is ${kind}, not a search index rxstore made; it is left as it is`, {
      file: path,
    });
  }
}

/** The index file, opened and of this version; one that cannot be read, or of another version, is a cache: it is built again. */
function openDatabase(sqlite: Sqlite, file: string, schema: IndexSchema): Database {
  // SQLite takes a write-ahead log or its index beside the file as its own: the index never makes one.
  refuseFilesNotOurs([file, `${file}-journal`, `${file}-wal`, `${file}-shm`]);
  // A file the system will not let be written (read-only, immutable, another user's) is said by its code, before
  // SQLite's open fails without one and the file is taken for damage.
  checkWritable(file);
  refuseOtherFile(file);
  for (let attempt = 0; ; attempt += 1) {
    let db: Database | undefined;
    try {
      db = new sqlite.Database(file);
      // SQLite's lock is taken by the first statement and kept until close (see `IndexConnection`).
      db.exec('pragma locking_mode = exclusive');
      refuseOtherDatabase(db, file);
      chmodSync(file, FILE_MODE);
      const version = Number((db.get('pragma user_version') as Row | null)?.user_version ?? 0);
      const hasTables = db.get("select 1 as found from sqlite_master where name = 'sessions'") !== null;
      if (hasTables && version !== schema.version) throw new Error('another version');
      // Only a new file is written here: setting the version on every open would be a commit (a sync) per search.
      if (!hasTables)
        db.exec(
          `begin immediate; ${schema.sql}; pragma user_version = ${schema.version}; pragma application_id = ${APPLICATION_ID}; commit`,
        );
      db.exec(`pragma cache_size = -${CACHE_KIB.reading}`);
      // The whole index is checked only by what reads it; a page that fails to read throws there.
      return db;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // Closing a file that would not open: nothing more to release.
      }
      if (error instanceof OverwriteRefusedError) throw error;
      if (attempt > 0) {
        // This attempt made the file (the first removed what stood there): one it could not write a byte of goes.
        if (lstatOrUndefined(file)?.size === 0) removeIndexFiles(file);
        throw engineErrorSaid(error, file);
      }
      removeIndexFiles(file);
    }
  }
}

/** What rxstore's index files say they are (`pragma application_id`): "RXSX". */
const APPLICATION_ID = 0x52585358;
/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Tables every index of an earlier rxstore holds, from before it set its application id. */
const EARLIER_INDEX_TABLES = ['sessions', 'docs'];
/** Every name an index of rxstore gives what it keeps (tables, indexes, FTS5's tables and SQLite's own). */
const INDEX_NAME = /^(sessions|docs|docs_body|docs_by_key|places|places_by_id|docs_text(_\w+)?|sqlite_\w+)$/;
/** Where the header keeps `pragma application_id`: a big-endian 32-bit number at byte 68. */
const APPLICATION_ID_AT = 68;

/**
 * Refuses a file in the index's place that is no SQLite database (another program's, or text): the index is
 * a cache rxstore builds again when it is damaged, but it removes only what it made. An empty file is none.
 */
function refuseOtherFile(file: string): void {
  const head = Buffer.alloc(APPLICATION_ID_AT + 4);
  let read = 0;
  try {
    const fd = openSync(file, 'r');
    try {
      read = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    undefinedIfMissing(error, file);
    return;
  }
  if (read === 0) return;
  if (head.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) {
    // Another program's database says so in its header, read before SQLite (which may find the rest damaged).
    const id = read >= APPLICATION_ID_AT + 4 ? head.readUInt32BE(APPLICATION_ID_AT) : 0;
    if (id === 0 || id === APPLICATION_ID) return;
    throw new OverwriteRefusedError(
      `${file} is another program's SQLite database (application id ${id}), not a search index rxstore made; it is left as it is: remove it to have the index built there`,
      { file },
    );
  }
  throw new OverwriteRefusedError(
    `${file} is not a search index rxstore made (no SQLite database); it is left as it is: remove it to have the index built there`,
    { file },
  );
}

/** Refuses another program's SQLite database in the index's place: its tables are not rxstore's to add to or remove. */
function refuseOtherDatabase(db: Database, file: string): void {
  const id = Number((db.get('pragma application_id') as Row | null)?.application_id ?? 0);
  if (id === APPLICATION_ID) return;
  // Every table, index, view and trigger: a database of views alone is no empty one.
  const names = (db.all('select name from sqlite_master') as Row[]).map((row) => String(row.name));
  const earlierIndex =
    id === 0 &&
    EARLIER_INDEX_TABLES.every((name) => names.includes(name)) &&
    names.every((name) => INDEX_NAME.test(name));
  if (names.length === 0 || earlierIndex) return;
  throw new OverwriteRefusedError(
    `${file} is another program's SQLite database, not a search index rxstore made; it is left as it is: remove it to have the index built there`,
    { file },
  );
}

/** Opens an index file there is for writing and closes it: throws the system's error, coded, where it may not be. */
function checkWritable(file: string): void {
  try {
    closeSync(openSync(file, 'r+'));
  } catch (error) {
    undefinedIfMissing(error, file);
  }
}

/** Removes the index file and its journal (to be built again): one the system will not let go is said by its code. */
export function removeIndexFiles(file: string): void {
  for (const path of [file, `${file}-journal`]) {
    try {
      unlinkSync(path);
    } catch (error) {
      undefinedIfMissing(error, path);
    }
  }
}

/**
 * SQLite's own "out of memory", as what it is: the WebAssembly build that keeps the index holds at most
 * 2 GiB, and a text of some hundreds of megabytes (one tool's output) takes more to index or to read back.
 * Not damage: the index is not built again for it. Anything else as it is.
 */
export function outOfMemorySaid(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'SQLite3Error' || error.message !== 'out of memory') return error;
  return new TooLargeError(
    'the search ran out of memory: SQLite, built for WebAssembly, keeps the index in at most 2 GiB, too little for the texts searched (one of some hundreds of megabytes); search fewer sessions (--session, --workspace)',
    {},
    { cause: error },
  );
}

/** Whether `error` is SQLite's own (the file is not a database, a page is malformed, an I/O error), not rxstore's. */
export function isEngineError(error: unknown): boolean {
  return error instanceof IndexContradictionError || (error instanceof Error && error.name === 'SQLite3Error');
}

/**
 * The index contradicts itself where SQLite found nothing wrong (a page written over: a hit whose session has no
 * row): taken as SQLite's damage is, the index built again.
 */
export class IndexContradictionError extends Error {
  constructor(what: string) {
    super(`the index contradicts itself: ${what}`);
    this.name = 'IndexContradictionError';
  }
}

/** The system code `engineErrorSaid` gives what SQLite says. */
export const ENGINE_ERROR_CODE = 'SQLITE_ERROR';

/**
 * SQLite's error about the index `file`, coded, naming the file, in SQLite's own words; but its `disk I/O
 * error` on a file system with next to no room left is the full disk it is (the WebAssembly build's writes
 * keep no errno).
 */
export function engineErrorSaid(error: unknown, file: string): RxError {
  if (error instanceof RxError) return error;
  const said = error instanceof Error ? error.message : String(error);
  const full = said === 'disk I/O error' && roomLeft(dirname(file)) < NEXT_TO_NO_ROOM;
  return new FileSystemError(
    Object.assign(new Error(full ? 'no space left on device' : said), { code: full ? 'ENOSPC' : ENGINE_ERROR_CODE }),
    file,
  );
}

/** Less room than this left, a write that failed most likely failed for room. */
const NEXT_TO_NO_ROOM = 1024 * 1024;

/** The bytes an unprivileged write may still take in `folder`'s file system; infinite when it cannot be told. */
function roomLeft(folder: string): number {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    // Not to be told: the error is said in SQLite's words.
    return Number.POSITIVE_INFINITY;
  }
}
