import type { CommittedBatch } from '../batch.js';
import { returnLogWorker, type LogWorker } from './log-worker-pool.js';
import type { LogItem } from '../read-batches.js';
import type { ReadLogOptions } from '../read-log-options.js';
import { BatchChangedError } from '../../errors/index.js';

type ReadHere = (logPath: string, options: ReadLogOptions) => AsyncGenerator<LogItem>;

/**
 * The items of a log decoded by a log worker (decompression, records, batch digests and rules: the
 * codec's whole work) while the caller uses those already posted. The worker reads ahead by
 * `GROUPS_AHEAD` groups of about a megabyte, so memory stays bounded by the largest batch.
 *
 * Whatever stops the worker (damage, a system error, a thread that died), the log is read again on
 * this thread from the same start, past the batches already given, so that the error is the one
 * `readHere` throws, where it throws it; a batch read again that differs from the one given is a log
 * changed while it was read. The worker goes back to the pool when the read ends.
 */
export async function* readLogBatchesInWorker(
  worker: LogWorker,
  logPath: string,
  options: ReadLogOptions,
  readHere: ReadHere,
): AsyncGenerator<LogItem> {
  let given = 0;
  let lastGiven: CommittedBatch | undefined;
  let ended = false;
  try {
    worker.read(logPath, options);
    for (let message = await worker.next(); ; message = await worker.next()) {
      if (message.type !== 'items') {
        ended = true;
        if (message.type === 'end') return;
        break;
      }
      worker.send({ type: 'more' });
      for (const item of message.items) {
        if (item.type === 'batch') {
          restoreBuffers(item.batch);
          given += 1;
          lastGiven = item.batch;
        }
        yield item;
      }
    }
  } finally {
    await worker.finish(ended);
    returnLogWorker(worker);
  }
  let seen = 0;
  const changed = (offset: number) => new BatchChangedError(logPath, offset);
  for await (const item of readHere(logPath, options)) {
    if (seen < given) {
      // A batch given is not there now: the log was cut or rewritten meanwhile.
      if (item.type !== 'batch') throw changed(lastGiven!.offset);
      seen += 1;
      if (seen === given && !sameBatch(item.batch, lastGiven!)) throw changed(item.batch.offset);
      continue;
    }
    yield item;
  }
  if (seen < given) throw changed(lastGiven!.offset);
}

function sameBatch(a: CommittedBatch, b: CommittedBatch): boolean {
  return a.offset === b.offset && a.end === b.end && a.sha256 === b.sha256;
}

/** A payload crosses threads as a plain Uint8Array (a view of its group's block): a Buffer again, of the same bytes. */
export function restoreBuffers(batch: CommittedBatch): void {
  for (const event of batch.events) {
    if (event.payload)
      event.payload = Buffer.from(event.payload.buffer, event.payload.byteOffset, event.payload.byteLength);
  }
}
