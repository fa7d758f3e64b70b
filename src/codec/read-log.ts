import { stat } from 'node:fs/promises';
import { verifiedBatches, type LogItem } from './read-batches.js';
import { openLogBytes, readFrames } from './read-frames.js';
import { recallOperation } from './operations/recall-operation.js';
import { RecalledOperationLedger } from './operations/recalled-operation-ledger.js';
import { takeLogWorker } from './log-worker/log-worker-pool.js';
import { readLogBatchesInWorker } from './log-worker/read-log-in-worker.js';
import type { ReadLogOptions } from './read-log-options.js';

export type { ReadLogOptions };

/** Where the log is decoded: beside the caller on a worker thread, on the caller's thread, or by its size. */
export type LogReadingThread = 'worker' | 'this' | 'by size';

/**
 * Logs at least this long (from where the read starts) are decoded on a worker thread when a core is
 * free for it: starting one costs about as much as decoding a few megabytes here.
 */
const WORKER_MIN_BYTES = 16 * 1024 * 1024;

/**
 * The committed batches of a log file, then its torn tail if it has one: its bytes read through
 * one refilled buffer, cut into frames, grouped into batches and verified as Reasonix verifies them
 * (`readFrames`, then `readBatches`); every error names the file. Memory is bounded by the largest
 * batch, not the log, but for 16 bytes a batch: each operation kept as a fingerprint and its
 * batch's offset, its id and hash read back from the file when needed (`RecalledOperationLedger`).
 * Stopping the iteration early closes the file.
 *
 * Asked to (`thread`), a long log is decoded on a worker thread while the caller uses the batches
 * already decoded (`readLogBatchesInWorker`): the same items, in the same order, and the same error,
 * thrown here. By default it is decoded on this thread: a worker pays for itself over a whole long
 * read, but starting one delays the first item and adds a second heap.
 */
// Stryker disable next-line StringLiteral: which thread reads the log: both give the same items (log-read-in-worker)
export async function* readLogBatches(
  logPath: string,
  options: ReadLogOptions = {},
  thread: LogReadingThread = 'this',
): AsyncGenerator<LogItem> {
  // Asked for by name, a worker is started even when every core has one (tests of it on any machine).
  // Stryker disable next-line BooleanLiteral,ConditionalExpression,EqualityOperator,StringLiteral: which thread reads the log: both give the same items (log-read-in-worker)
  const worker =
    thread === 'worker'
      ? takeLogWorker(true)
      : thread === 'by size' && (await longEnoughForAWorker(logPath, options))
        ? takeLogWorker()
        : undefined;
  if (worker) yield* readLogBatchesInWorker(worker, logPath, options, readLogBatchesOnThisThread);
  else yield* readLogBatchesOnThisThread(logPath, options);
}

/** `readLogBatches` decoding every frame on the caller's thread. */
export function readLogBatchesOnThisThread(logPath: string, options: ReadLogOptions = {}): AsyncGenerator<LogItem> {
  const offset = options.offset ?? 0;
  // Stryker disable next-line BooleanLiteral: whether a record's raw bytes may borrow the read buffer: memory only (they are copied instead)
  const frames = readFrames(openLogBytes(logPath, offset), { file: logPath, startOffset: offset, transientRaw: true });
  const operations = new RecalledOperationLedger((batchOffset) => recallOperation(logPath, batchOffset), logPath);
  return verifiedBatches(frames, { file: logPath, nextSequence: options.nextSequence ?? 1 }, operations);
}

/** Whether the log holds enough bytes past the start to be worth a worker; a log that cannot be looked at is read here, which names what is wrong. */
// Stryker disable next-line BlockStatement: whether a log is long enough for a worker: which thread, speed only
async function longEnoughForAWorker(logPath: string, options: ReadLogOptions): Promise<boolean> {
  try {
    const { size } = await stat(logPath);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: whether a log is long enough for a worker: which thread, speed only
    return size - (options.offset ?? 0) >= WORKER_MIN_BYTES;
    // Stryker disable next-line BlockStatement: a log that cannot be measured is read by a worker, which fails, and then on this thread, which gives the same …
  } catch {
    // Stryker disable next-line BooleanLiteral: a log that cannot be measured is read by a worker, which fails, and then on this thread, which gives the same …
    return false;
  }
}
