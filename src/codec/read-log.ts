import { verifiedBatches, type LogItem } from './read-batches.js';
import { openLogBytes, readFrames } from './read-frames.js';
import { recallOperation } from './operations/recall-operation.js';
import { RecalledOperationLedger } from './operations/recalled-operation-ledger.js';

/** Where in a log file to start reading, and the sequence the first batch there must carry. */
export interface ReadLogOptions {
  /** Start at this batch boundary (a cursor's offset) instead of at the log's beginning. */
  offset?: number;
  /** The sequence the first batch there must start at: 1 at the beginning. */
  nextSequence?: number;
}

/**
 * The committed batches of a log file, then its torn tail if it has one: its bytes read through
 * one refilled buffer, cut into frames, grouped into batches and verified as Reasonix verifies them
 * (`readFrames`, then `readBatches`); every error names the file. Memory is bounded by the largest
 * batch, not the log, but for 16 bytes a batch: each operation kept as a fingerprint and its
 * batch's offset, its id and hash read back from the file when needed (`RecalledOperationLedger`).
 * Stopping the iteration early closes the file.
 */
export function readLogBatches(logPath: string, options: ReadLogOptions = {}): AsyncGenerator<LogItem> {
  const offset = options.offset ?? 0;
  const frames = readFrames(openLogBytes(logPath, offset), { file: logPath, startOffset: offset, transientRaw: true });
  const operations = new RecalledOperationLedger((batchOffset) => recallOperation(logPath, batchOffset), logPath);
  return verifiedBatches(frames, { file: logPath, nextSequence: options.nextSequence ?? 1 }, operations);
}
