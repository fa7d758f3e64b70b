import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import * as z from 'zod';
import { FrameParser } from '../../codec/frame-parser.js';
import { FRAME_HEADER_BYTES, FRAME_MAGIC, parseFrameHeader } from '../../codec/frame.js';
import { V4RecordSchema } from '../../codec/records.js';
import { CursorMismatchError, DamagedStoreError, fileSystemErrorOf, NotRegularFileError } from '../../errors/index.js';
import { openRegularFileSync, type OpenRegularFile } from '../../fs/open-regular-file.js';
import { fileStamp } from '../../fs/files-stamp.js';
import { firstIssue } from '../../codec/first-issue.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';
import { OperationsSeenSchema, type SavedOperationsSeen } from './operations-seen.js';

/**
 * Where an incremental reader stopped: after the last committed batch it saw. It carries the
 * session's identity and digests of the log's first bytes and of the bytes just before the
 * offset, so that a log rewritten under it (a repair cut a tail, another log took its place)
 * is noticed instead of read from the wrong place; and, when the log ended at the offset, a stamp
 * of the log's file, so that one written in place under it (same size) is verified again before a
 * read calls it caught up. Store it as JSON; it is validated on use.
 */
export const CursorSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  offset: z.number().int().nonnegative(),
  nextSequence: z.number().int().positive(),
  writerGeneration: z.number().int().nonnegative(),
  prefixDigest: z.string().nullable(),
  anchorDigest: z.string().nullable(),
  /**
   * The log's file as a stat described it before the read that made the cursor (`fileStamp`: size,
   * modification and change times in nanoseconds, device, inode), kept only when its size was the
   * offset. Absent in a cursor made before stamps, or of a log that grew while it was read.
   */
  logStamp: z
    .string()
    .max(128)
    .regex(/^[0-9]+(:[0-9]+){4}$/)
    .optional(),
  /**
   * The operation ids of the batches before the offset (`OperationsSeen`): a batch after it that may use
   * one again is judged by their begin records, read back. Absent in a cursor made before them: the read
   * then reads the log up to the offset once to know them.
   */
  operations: OperationsSeenSchema.optional(),
});
/** A place in a session log to read on from: the offset after the last batch read, and digests that tell whether the bytes before it changed. */
export type Cursor = z.infer<typeof CursorSchema>;

/** Bytes hashed on each side: enough to tell logs apart, small enough to cost nothing. */
const PREFIX_BYTES = 64;
const ANCHOR_BYTES = 4096;

export interface LogPosition {
  offset: number;
  nextSequence: number;
  writerGeneration: number;
  /** The operation ids of the batches before the offset, made when the cursor is (`OperationsSeen.snapshot`). */
  operations?: () => SavedOperationsSeen;
}

/**
 * Makes cursors at batch boundaries of one log through one open handle: a reader that hands out a
 * cursor after every batch pays two small reads a batch, not two opens. `later` defers that work to
 * when a cursor is asked for: a first read of a long log passes thousands of batch ends, and a
 * caller keeps the cursor of few of them (the last one stored).
 */
export class CursorMaker {
  private readonly scratch = Buffer.alloc(ANCHOR_BYTES);
  private prefix: { offset: number; digest: string | null } | undefined;
  private closed = false;

  private constructor(
    private readonly file: OpenRegularFile,
    private readonly sessionId: string,
    private readonly logPath: string,
    /** The file read: a cursor asked for after the read ended is taken from this file or refused. */
    private readonly identity: { dev: number; ino: number },
    /** The log as it stood when opened, before any of it was read: a cursor at its end carries its stamp. */
    private readonly opened: { size: number; stamp: string },
  ) {}

  /** Opens the log as the reader does: a FIFO or a device standing there is refused, never waited on. */
  static async open(sessionDir: string, sessionId: string): Promise<CursorMaker> {
    const log = join(sessionDir, SESSION_FILES.log);
    const file = openRegularFileSync(
      log,
      () => new NotRegularFileError("not a regular file: a session's log is read from a file only", { file: log }),
    );
    let opened: { size: number; stamp: string };
    try {
      // Taken before the read: a change made while or after it was read makes the stamp differ, never vouches for bytes not read.
      const exact = fstatSync(file.fd, { bigint: true });
      opened = { size: Number(exact.size), stamp: fileStamp(exact) };
    } catch (error) {
      file.close();
      throw fileSystemErrorOf(error, log);
    }
    return new CursorMaker(file, sessionId, log, { dev: file.stats.dev, ino: file.stats.ino }, opened);
  }

  /** The cursor at `position`, made now. */
  at(position: LogPosition): Cursor {
    return this.now(position);
  }

  /**
   * The cursor at `position`, made when it is first asked for (then kept): through the open log
   * while the read runs, through the log opened again after it ended — the same file (device and
   * inode), or `CursorMismatchError`: another file now stands there, and what was read is not in it.
   */
  later(position: LogPosition): () => Cursor {
    let made: Cursor | undefined;
    return () => (made ??= this.now(position));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.file.close();
  }

  private now(position: LogPosition): Cursor {
    if (!this.closed) return this.make(position, this.file.fd);
    return this.reopened(position.offset, (fd) => this.make(position, fd));
  }

  private make(position: LogPosition, fd: number): Cursor {
    const prefixEnd = Math.min(PREFIX_BYTES, position.offset);
    const digest = (start: number, end: number) => this.digest(fd, start, end);
    // The prefix digest is the same for every offset past the prefix: hashed once.
    // Stryker disable next-line ConditionalExpression: the prefix digest computed again for every cursor is the same digest
    if (this.prefix?.offset !== prefixEnd) this.prefix = { offset: prefixEnd, digest: digest(0, prefixEnd) };
    return {
      version: 1,
      sessionId: this.sessionId,
      offset: position.offset,
      nextSequence: position.nextSequence,
      writerGeneration: position.writerGeneration,
      prefixDigest: this.prefix.digest,
      anchorDigest: digest(Math.max(0, position.offset - ANCHOR_BYTES), position.offset),
      // A log that grew while it was read is read from the offset next time anyway: no stamp needed.
      ...(position.offset === this.opened.size ? { logStamp: this.opened.stamp } : {}),
      ...(position.operations ? { operations: position.operations() } : {}),
    };
  }

  /** Runs `use` on the log opened again, when it is still the file the read was of, as long as `offset` at least. */
  private reopened<T>(offset: number, use: (fd: number) => T): T {
    let fd: number;
    try {
      fd = openSync(this.logPath, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      throw fileSystemErrorOf(error, this.logPath);
    }
    try {
      const stats = fstatSync(fd);
      if (stats.dev !== this.identity.dev || stats.ino !== this.identity.ino || stats.size < offset)
        throw new CursorMismatchError(
          'the log was replaced or cut after this piece was read, and its cursor was asked for only then: read the session again from the start',
          { file: this.logPath },
        );
      return use(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Read synchronously through the handle's descriptor: a promise round trip for each 4 KiB (just
   * read, in the page cache) cost more than the rest of the read did. A read of 4 KiB takes
   * microseconds.
   */
  private digest(fd: number, start: number, end: number): string | null {
    const length = Math.max(0, end - start);
    if (length === 0) return null;
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, this.scratch, 0, length, start);
    } catch (error) {
      throw fileSystemErrorOf(error, this.logPath);
    }
    return digestOf(this.scratch.subarray(0, bytesRead));
  }
}

/** A cursor at `offset` (a batch boundary) of a session's log. */
export async function cursorAt(sessionDir: string, sessionId: string, position: LogPosition): Promise<Cursor> {
  const maker = await CursorMaker.open(sessionDir, sessionId);
  try {
    return maker.at(position);
  } finally {
    await maker.close();
  }
}

/**
 * The cursor, validated: its shape and version, its session, that the log still holds, unchanged,
 * what it saw, that its offset is a batch boundary (the bytes before it end a `batch/end` frame)
 * and that its sequence is the one after that batch; otherwise `CursorMismatchError` naming what
 * differs. A batch after a cursor that fits which does not begin at its sequence is then damage.
 */
export async function checkCursor(sessionDir: string, sessionId: string, given: unknown): Promise<Cursor> {
  return (await checkCursorOnLog(sessionDir, sessionId, given)).cursor;
}

/**
 * `checkCursor`, with the log's size and stamp (`fileStamp`) on the handle it judged: whether
 * anything follows the cursor, and whether the log may have been written since, with no second look. The checks read at most two small ranges (the log's first bytes, and the
 * window before the offset that both the anchor digest and the batch boundary are judged on),
 * synchronously: an indexer's re-run checks a cursor per session, and the promise API's round
 * trips per file were most of its time, for reads that take microseconds.
 */
export async function checkCursorOnLog(
  sessionDir: string,
  sessionId: string,
  given: unknown,
): Promise<{ cursor: Cursor; logSize: number; logStamp: string }> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  const parsed = CursorSchema.safeParse(given);
  if (!parsed.success) {
    // A records cursor holds a log cursor: say which to give rather than what its shape lacks.
    const recordsCursor = typeof given === 'object' && given !== null && 'log' in given && 'waiting' in given;
    const why = recordsCursor
      ? 'a records cursor (recordsSince takes it; its `log` is the log cursor)'
      : firstIssue(parsed.error);
    throw new CursorMismatchError(`not a log cursor rxstore made: ${why}`, { file: logPath });
  }
  const cursor = parsed.data;
  const fail = (why: string) =>
    new CursorMismatchError(`the cursor does not fit this log: ${why}; read the session again from the start`, {
      file: logPath,
      offset: cursor.offset,
    });
  if (cursor.sessionId !== sessionId) throw fail(`it was taken from session ${JSON.stringify(cursor.sessionId)}`);
  // One descriptor for every check: a log replaced meanwhile is judged whole, old or new, never half of each.
  const { size, stamp, prefix, window } = readCursorRanges(logPath, cursor.offset);
  if (size < cursor.offset)
    throw fail(`the log is ${size} bytes, shorter than the cursor's offset (a repair cut it, or it was replaced)`);
  if (digestOf(prefix) !== cursor.prefixDigest || digestOf(window) !== cursor.anchorDigest)
    throw fail('the bytes before the offset changed (the log was rewritten)');
  const continues = cursor.offset === 0 ? 1 : sequenceAfterBatchEnd(window);
  if (continues === undefined)
    throw fail(`offset ${cursor.offset} is not a batch boundary: the bytes before it do not end a batch/end frame`);
  if (continues !== cursor.nextSequence) {
    const why =
      cursor.offset === 0
        ? 'a log starts at sequence 1'
        : `the batch before the offset ends at sequence ${continues - 1}`;
    throw new CursorMismatchError(
      `the cursor does not fit this log: the log does not continue at sequence ${cursor.nextSequence} there (${why}); read the session again from the start`,
      {
        file: logPath,
        offset: cursor.offset,
        sequence: cursor.nextSequence,
      },
    );
  }
  return { cursor, logSize: size, logStamp: stamp };
}

/** The log's size and stamp, its first bytes and the window before `offset`, as a cursor at `offset` hashes them (empty past the end). */
function readCursorRanges(
  logPath: string,
  offset: number,
): { size: number; stamp: string; prefix: Buffer; window: Buffer } {
  // As the reader opens it: a FIFO put in the log's place is refused, never waited on (a wait here held the thread).
  const file = openRegularFileSync(
    logPath,
    () => new NotRegularFileError("not a regular file: a session's log is read from a file only", { file: logPath }),
  );
  const { fd } = file;
  try {
    const stats = fstatSync(fd, { bigint: true });
    const [size, stamp] = [Number(stats.size), fileStamp(stats)];
    // Stryker disable next-line ConditionalExpression: size < offset is refused by the caller before prefix/window are used
    if (size < offset) return { size, stamp, prefix: Buffer.alloc(0), window: Buffer.alloc(0) };
    const read = (start: number, end: number) => {
      const bytes = Buffer.alloc(end - start);
      // Stryker disable next-line ConditionalExpression: readSync of length 0 returns 0 (checked), the same as the guard
      return bytes.subarray(0, bytes.length === 0 ? 0 : readSync(fd, bytes, 0, bytes.length, start));
    };
    return {
      size,
      stamp,
      prefix: read(0, Math.min(PREFIX_BYTES, offset)),
      window: read(Math.max(0, offset - ANCHOR_BYTES), offset),
    };
  } catch (error) {
    throw fileSystemErrorOf(error, logPath);
  } finally {
    file.close();
  }
}

/** A cursor's digest of a range: SHA-256 in lower-case hex, null for no bytes (as `CursorMaker` makes it). */
function digestOf(bytes: Buffer): string | null {
  return bytes.length === 0 ? null : createHash('sha256').update(bytes).digest('hex');
}

/**
 * The sequence after the batch whose whole `batch/end` frame ends `window`, the log's bytes up to a
 * cursor's offset; undefined when no such frame ends it.
 * A frame has no trailer, so the frame is found from its header: a magic whose declared size ends
 * exactly at the offset, and that decodes to a batch/end record. A batch/end record is a few
 * hundred bytes, well inside the window the anchor digest covers.
 */
function sequenceAfterBatchEnd(window: Buffer): number | undefined {
  // Stryker disable next-line EqualityOperator: a 12-byte window can only end a header-only frame, which holds no batch/end record
  if (window.length < FRAME_HEADER_BYTES) return undefined;
  // Only where the magic stands can a frame start: found by the native search, from the end back.
  for (
    let start = window.lastIndexOf(FRAME_MAGIC, window.length - FRAME_HEADER_BYTES);
    start >= 0;
    start = start === 0 ? -1 : window.lastIndexOf(FRAME_MAGIC, start - 1)
  ) {
    const header = parseFrameHeader(window, start);
    if (header.fault || start + header.frameBytes !== window.length) continue;
    const after = sequenceAfter(window.subarray(start));
    if (after !== undefined) return after;
  }
  return undefined;
}

/** The sequence after the batch a `batch/end` frame closes (its firstSeq + eventCount); undefined for any other frame. */
function sequenceAfter(frameBytes: Buffer): number | undefined {
  try {
    const [frame] = new FrameParser(undefined).push(frameBytes);
    // Stryker disable next-line ConditionalExpression: the header said the frame ends at the window end, so the parser always yields it or throws damage
    if (!frame) return undefined;
    const record: unknown = parseGoJson(frame.raw);
    const end = V4RecordSchema.safeParse(record);
    return end.success &&
      end.data.recordType === 'batch/end' &&
      end.data.firstSeq !== undefined &&
      end.data.eventCount !== undefined
      ? end.data.firstSeq + end.data.eventCount
      : undefined;
  } catch (error) {
    // Not a frame after all: bytes inside compressed data that look like a header.
    if (error instanceof DamagedStoreError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
