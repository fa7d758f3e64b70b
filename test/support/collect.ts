import { readBatches, type LogItem } from '../../src/codec/read-batches.js';
import { openLogBytes, readFrames, type ByteSource } from '../../src/codec/read-frames.js';
import type { CommittedBatch, TornTail } from '../../src/codec/batch.js';

/** Reads a whole log into memory: fine for the small logs tests use. */
export async function collectLog(
  source: ByteSource | string,
  file?: string,
  options: { transientRaw?: boolean } = {},
): Promise<{ batches: CommittedBatch[]; torn: TornTail | null }> {
  const bytes = typeof source === 'string' ? openLogBytes(source) : source;
  const batches: CommittedBatch[] = [];
  let torn: TornTail | null = null;
  for await (const item of readBatches(
    readFrames(bytes, { file: file ?? (typeof source === 'string' ? source : undefined), ...options }),
  )) {
    if (item.type === 'batch') batches.push(item.batch);
    else torn = item.tail;
  }
  return { batches, torn };
}

export type { LogItem };
