import { join } from 'node:path';
import { directoryRefusal } from '../reading/directory-refusal.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { BatchChangedError, CursorMismatchError, isCutAfter } from '../../errors/index.js';
import { checkCursor, checkCursorOnLog, cursorAt, CursorMaker, type Cursor } from './cursor.js';
import type { ResolvedBatch } from '../reading/read-events.js';
import type { CommittedBatch } from '../../codec/batch.js';
import type { Projection } from '../replay/projection.js';
import { replayedBatches } from '../verdict/replayed-batches.js';
import { checkCount } from '../../errors/caller-input.js';
import { readLogBatches } from '../../codec/read-log.js';
import { OperationsSeen } from './operations-seen.js';
import { operationHashBefore } from '../../codec/operations/operation-hash-before.js';
import { conflictingOperation } from '../../codec/operations/conflicting-operation.js';

/** What `readSince` gathers: the batches committed after a cursor, and the cursor to save after them. */
export interface ReadSince {
  /** The batches committed after the cursor, in order; never an unfinished one. */
  batches: ResolvedBatch[];
  /** Where the next read starts: after the last batch returned (the given cursor when none). */
  cursor: Cursor;
}

/** How far `readSince` and `batchesSince` read. */
export interface ReadSinceOptions {
  /** Stop after this many batches; the cursor then points after the last one given. */
  maxBatches?: number;
}

/** A committed batch and the cursor to keep once it is handled. */
export interface BatchSince {
  batch: ResolvedBatch;
  cursor: Cursor;
}

/**
 * The batches committed since `cursor` (from the beginning without one), one at a time, each with
 * the cursor after it: memory is bounded by the largest batch, and the cost grows with the new
 * bytes, not the log. The cursor is validated first (`CursorMismatchError` naming what differs:
 * not a cursor, another session, a log cut or rewritten under it, a sequence the log does not
 * continue at; a log written in place under a caught-up cursor is verified again: `startSince`).
 * A batch Reasonix would refuse (damaged bytes, a payload its decoder rejects) throws its coded
 * error after the batches before it.
 */
export async function* batchesSince(
  sessionDir: string,
  sessionId: string,
  given?: unknown,
  options: ReadSinceOptions = {},
): AsyncGenerator<BatchSince> {
  const start = await startSince(sessionDir, sessionId, given);
  for await (const { batch, cursor } of replayedBatchesSince(sessionDir, sessionId, start, options))
    yield { batch, cursor: cursor() };
}

/** Where a read since a cursor starts (`startSince`). */
export interface SinceStart {
  /** The cursor given, checked; undefined to read from the log's start. */
  cursor: Cursor | undefined;
  /** The log ends at the cursor: there is nothing to read, and `cursor` is where the read stands. */
  caughtUp: boolean;
  /** The log was written since the cursor was made, and verified again: `cursor` carries its new stamp. */
  restamped: boolean;
}

const FROM_THE_START: SinceStart = { cursor: undefined, caughtUp: false, restamped: false };

/**
 * The cursor given, checked (`checkCursorOnLog`), and whether the log holds anything after it: the
 * one place a read since a cursor decides where it starts. A log that ends at the cursor is caught
 * up, at the cost of a stat and the session directory's checks (its manifest read and judged, as a
 * read of new batches judges it first), while its stamp is the cursor's. When it differs (the log written in
 * place, copied back or touched since), the log is verified once, up to the offset, as a read
 * from no cursor verifies it: its damage is thrown as that read throws it; a log that verifies is
 * caught up, and the cursor returned carries the new stamp. A cursor without a stamp (made before
 * stamps) is caught up as before, unverified. A log that grew is read from the offset: a change
 * before the offset is then not seen, but in the bytes the cursor's digests cover.
 */
export async function startSince(sessionDir: string, sessionId: string, given: unknown): Promise<SinceStart> {
  // The cursor's check is a few synchronous microseconds of file work, and a caught-up read is done
  // after it: a loop over many sessions would otherwise never let timers, I/O or signals in.
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (given === undefined) return FROM_THE_START;
  const { cursor, logSize, logStamp } = await checkCursorOnLog(sessionDir, sessionId, given);
  if (logSize !== cursor.offset) return { cursor, caughtUp: false, restamped: false };
  // Nothing to read, but the session is still judged as a read of new batches judges it first: a manifest
  // removed or made another session's since is said, never a silent "nothing new".
  const refusal = await directoryRefusal(sessionDir);
  if (refusal) throw refusal;
  // Nothing after the cursor, and the log as the cursor's read left it: an indexer's re-run over unchanged sessions opens no reader.
  if (cursor.logStamp === undefined || cursor.logStamp === logStamp)
    return { cursor, caughtUp: true, restamped: false };
  const operations = (await verifyUpTo(sessionDir, sessionId, cursor)).snapshot()();
  // The stamp the check took, before the log was verified: a change made while it was, makes the next check verify again.
  return { cursor: { ...cursor, logStamp, operations }, caughtUp: true, restamped: true };
}

/**
 * The log read from its start up to the cursor's offset as a read from no cursor reads it: its first refusal
 * thrown; the operation ids it holds there, for the cursor to carry (the log's middle may have changed).
 */
async function verifyUpTo(sessionDir: string, sessionId: string, cursor: Cursor): Promise<OperationsSeen> {
  let end = 0;
  const operations = OperationsSeen.none();
  for await (const { batch } of replayedBatchesSince(sessionDir, sessionId, FROM_THE_START)) {
    end = batch.batch.end;
    operations.add(batch.batch.operationId);
    if (end >= cursor.offset) break;
  }
  if (end !== cursor.offset)
    throw new CursorMismatchError(
      `the cursor does not fit this log: no batch of it ends at the offset, read from the start (the log was rewritten); read the session again from the start`,
      { file: join(sessionDir, SESSION_FILES.log), offset: cursor.offset },
    );
  return operations;
}

/**
 * The operation ids of the batches before the cursor: none before the log's start, those the cursor carries,
 * or, for a cursor made before cursors carried them, those of the log up to its offset, read once.
 */
async function operationsBefore(sessionDir: string, cursor: Cursor | undefined): Promise<OperationsSeen> {
  if (!cursor) return OperationsSeen.none();
  return OperationsSeen.before(cursor) ?? (await operationsUpTo(sessionDir, cursor.offset));
}

/**
 * The operation ids of the log's batches that end at or before `end`, its batch headers read from the start
 * up to the first batch that ends at or past `end` (their payloads left unread): a batch there that a read of
 * the whole log refuses (damage, or an operation id used again with another hash) is refused here.
 */
async function operationsUpTo(sessionDir: string, end: number): Promise<OperationsSeen> {
  const operations = OperationsSeen.none();
  for await (const item of readLogBatches(join(sessionDir, SESSION_FILES.log))) {
    if (item.type !== 'batch') break;
    if (item.batch.end <= end) operations.add(item.batch.operationId);
    if (item.batch.end >= end) break;
  }
  return operations;
}

/**
 * A batch after the cursor at `cursorOffset` whose operation id a batch before it may have used: refused
 * (`conflicting operation`) when one did with another hash, taken when none did or one did with the same hash
 * (a retry). The batches before the cursor are read back by their begin records (`operationHashBefore`); where
 * they are no longer as they were verified, or the batch is refused, the log is read from its start up to the
 * batch, which names the first fault there as a read of the whole log does (damage before the earlier batch's
 * begin record passed over by the read back).
 */
async function judgeOperation(sessionDir: string, cursorOffset: number, batch: CommittedBatch): Promise<void> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  let prior: string | undefined;
  try {
    prior = await operationHashBefore(logPath, cursorOffset, batch.operationId);
  } catch (error) {
    if (!(error instanceof BatchChangedError)) throw error;
    await operationsUpTo(sessionDir, batch.end);
    return;
  }
  if (prior === undefined || prior === batch.operationHash) return;
  // A refusal: the log read from its start names the first fault a whole read meets, which may lie before it.
  await operationsUpTo(sessionDir, batch.end);
  throw conflictingOperation(logPath, batch, prior);
}

/**
 * `batchesSince` from a start `startSince` decided, each batch with its replay on its own (which
 * the check for a refused payload makes anyway), and its cursor made only when asked for
 * (`CursorMaker.later`).
 */
export async function* replayedBatchesSince(
  sessionDir: string,
  sessionId: string,
  start: SinceStart,
  options: ReadSinceOptions = {},
): AsyncGenerator<{ batch: ResolvedBatch; replay: Projection; cursor: () => Cursor }> {
  // A count below 1 (or not whole) would give no batch and the cursor back: a loop going on from it never ends.
  checkCount(options.maxBatches, 'maxBatches', 1);
  const { cursor, caughtUp } = start;
  // Stryker disable next-line ConditionalExpression: speed only: a value kept to spare work done again (a digest per offset, a time parsed once per batch, a …
  if (caughtUp) return;
  const refusal = await directoryRefusal(sessionDir);
  if (refusal) throw refusal;
  const from = { offset: cursor?.offset ?? 0, nextSequence: cursor?.nextSequence ?? 1 };
  // Before the cursor, known by what it carries; from it on, by this read's own ledger (`readLogBatches`).
  const before = await operationsBefore(sessionDir, cursor);
  const operations = before.copy();
  const maker = await CursorMaker.open(sessionDir, sessionId);
  const batches = replayedBatches(sessionDir, from);
  let yielded = 0;
  // Where the last batch given ends: what a read since the cursor has handed over.
  let givenEnd = from.offset;
  try {
    while (options.maxBatches === undefined || yielded < options.maxBatches) {
      let next: IteratorResult<{ batch: ResolvedBatch; replay: Projection }>;
      try {
        next = await batches.next();
      } catch (error) {
        // A torn tail cut while this read was in it (a repair; Reasonix's own when it opens the session):
        // every batch before the cut was given, none is gone. The log now ends there, and so does the read;
        // a follower reads on from there.
        if (isCutAfter(error, givenEnd)) return;
        if (yielded > 0 || !cursor) throw error;
        // The log may have been replaced between the cursor's check and this read: if the cursor
        // no longer fits, that is the answer (CursorMismatchError); if it still does (its sequence
        // included), what follows it is damaged, and that is the answer.
        await checkCursor(sessionDir, sessionId, cursor);
        throw error;
      }
      if (next.done) return;
      const { batch, replay } = next.value;
      const { end, firstSeq, eventCount, writerGeneration, operationId } = batch.batch;
      // One a batch before the cursor may have used: a retry (the same hash) goes on, another hash is refused,
      // as a read of the whole log refuses it. (One used again after the cursor, this read's own ledger refuses.)
      if (cursor && !before.certainlyNew(operationId)) await judgeOperation(sessionDir, cursor.offset, batch.batch);
      operations.add(operationId);
      yielded += 1;
      givenEnd = end;
      yield {
        batch,
        replay,
        cursor: maker.later({
          offset: end,
          nextSequence: firstSeq + eventCount,
          writerGeneration,
          operations: operations.snapshot(),
        }),
      };
    }
  } finally {
    // Stopped early (maxBatches, a consumer that breaks, an error): the log's reader closes its file now.
    await batches.return(undefined);
    await maker.close();
  }
}

/**
 * The batches committed since `cursor`, gathered (up to `maxBatches`), and the cursor after the
 * last of them: `batchesSince` for callers that want them at once. It holds its result, so its
 * memory grows with what it gathers: up to three times the raw bytes of the batches at its peak (some
 * 280 MiB for a first read of a 100 MiB session: each payload kept as bytes, in blocks of their own,
 * and parsed). To read a long log with memory bounded by its largest batch, use `batchesSince`, or
 * give `maxBatches` and go on from the cursor returned.
 */
export async function readSince(
  sessionDir: string,
  sessionId: string,
  cursor?: unknown,
  options: ReadSinceOptions = {},
): Promise<ReadSince> {
  const batches: ResolvedBatch[] = [];
  const blocks = new PayloadBlocks();
  const start = await startSince(sessionDir, sessionId, cursor);
  // Only the last batch's cursor is returned: made once, not at every batch end (a read and a hash of 4 KiB each).
  let last: (() => Cursor) | undefined;
  for await (const item of replayedBatchesSince(sessionDir, sessionId, start, options)) {
    batches.push(blocks.keep(item.batch));
    last = item.cursor;
  }
  if (last) return { batches, cursor: last() };
  // Nothing new: the cursor stands, as `startSince` checked it (with the log's new stamp when it verified the log again).
  if (start.cursor !== undefined) return { batches, cursor: start.cursor };
  return {
    batches,
    cursor: await cursorAt(sessionDir, sessionId, { offset: 0, nextSequence: 1, writerGeneration: 0 }),
  };
}

/** Payloads a gathered read keeps are copied into blocks of this size (one larger payload, into one of its own). */
const BLOCK_BYTES = 1024 * 1024;

/**
 * Where a gathered read keeps its payloads' bytes: blocks of their own memory. A payload decoded
 * into a slab of Node's buffer pool keeps the whole slab alive, and the short-lived bytes decoded
 * beside it: kept as they came, a first read of a 100 MiB log held twice its payloads' bytes.
 */
class PayloadBlocks {
  private block = Buffer.allocUnsafeSlow(0);
  private used = 0;

  /**
   * The batch, its payloads' bytes (and its events' inline payloads, the same bytes) moved into the
   * blocks, and its payloads' repeated long strings shared.
   */
  keep(resolved: ResolvedBatch): ResolvedBatch {
    const { batch, payloads, payloadBytes } = resolved;
    shareRepeatedStrings(payloads);
    payloadBytes.forEach((bytes, index) => {
      if (!bytes) return;
      const kept = this.copy(bytes);
      const event = batch.events[index]!;
      if (event.payload === bytes) event.payload = kept;
      payloadBytes[index] = kept;
    });
    return resolved;
  }

  private copy(bytes: Buffer): Buffer {
    if (bytes.length > this.block.length - this.used) {
      this.block = Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, bytes.length));
      this.used = 0;
    }
    const kept = this.block.subarray(this.used, this.used + bytes.length);
    bytes.copy(kept);
    this.used += bytes.length;
    return kept;
  }
}

/** A string at least this long is shared with an equal one of the same batch; shorter ones cost less than their lookup. */
const SHARED_STRING_CHARS = 1024;

/**
 * Makes equal long strings among a batch's parsed payloads one string. Reasonix writes a tool's
 * output twice in the batch that ends its call (the tool message's `content` and the result's
 * `output`), and each parse makes its own copy: held together, a first gathered read of a 100 MiB
 * session kept 29 MiB of them twice. Walked with a stack of its own: a payload may nest 10,000 deep.
 */
function shareRepeatedStrings(payloads: unknown[]): void {
  const seen = new Map<string, string>();
  const stack: unknown[] = [payloads];
  while (stack.length > 0) {
    const container = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(container)) {
      const value = container[key];
      if (typeof value === 'string') {
        if (value.length < SHARED_STRING_CHARS) continue;
        const first = seen.get(value);
        if (first === undefined) seen.set(value, value);
        else container[key] = first;
      } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) stack.push(value);
    }
  }
}
