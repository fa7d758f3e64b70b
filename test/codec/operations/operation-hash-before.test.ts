// A batch after a cursor whose operation id the cursor cannot tell new is judged by the batches before
// the cursor: only their begin records are decoded, the rest passed over by frame headers.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operationHashBefore } from '../../../src/codec/operations/operation-hash-before.js';
import { BatchChangedError } from '../../../src/errors/index.js';
import { appendBatch, copySession, framesOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const tools = fixture('tool-calls');

/** Each batch's operation id and hash, and the offset just past its end frame, in log order. */
async function batchesOf(dir: string) {
  const frames = await framesOf(dir);
  const batches: { operationId: string; operationHash: string; end: number }[] = [];
  for (const frame of frames) {
    if (frame.record.recordType === 'batch/begin')
      batches.push({
        operationId: frame.record.operationId as string,
        operationHash: frame.record.operationHash as string,
        end: 0,
      });
    if (frame.record.recordType === 'batch/end') batches.at(-1)!.end = frame.offset + frame.bytes;
  }
  return batches;
}

describe('operationHashBefore', () => {
  it('gives the hash of the batch before the offset that used the id, and nothing for one no batch before it used', async () => {
    const dir = await copySession(tools.dir);
    const log = join(dir, 'events.frames');
    const batches = await batchesOf(dir);
    expect(batches.length).toBeGreaterThan(2);
    const end = batches.at(-1)!.end;
    for (const batch of batches)
      expect(await operationHashBefore(log, end, batch.operationId)).toBe(batch.operationHash);
    expect(await operationHashBefore(log, end, 'never-used')).toBeUndefined();
    // A batch at or past the offset is not before it.
    const last = batches.at(-1)!;
    expect(await operationHashBefore(log, batches.at(-2)!.end, last.operationId)).toBeUndefined();
    expect(await operationHashBefore(log, 0, batches[0]!.operationId)).toBeUndefined();
  });

  it('says the log changed where its frames no longer fit the batches that were verified', async () => {
    const dir = await copySession(tools.dir);
    const log = join(dir, 'events.frames');
    const batches = await batchesOf(dir);
    // An offset inside a batch: no batch ends there.
    await expect(operationHashBefore(log, batches[1]!.end - 1, 'never-used')).rejects.toBeInstanceOf(BatchChangedError);
    // The second batch's begin frame overwritten with one of its events' bytes.
    const frames = await framesOf(dir);
    const begin = frames.filter((frame) => frame.record.recordType === 'batch/begin')[1]!;
    const bytes = await readFile(log);
    bytes[begin.offset + 20] = bytes[begin.offset + 20]! ^ 0xff;
    await writeFile(log, bytes);
    await expect(operationHashBefore(log, batches.at(-1)!.end, 'never-used')).rejects.toBeInstanceOf(BatchChangedError);
    // The first batch is still found: nothing after it is read.
    expect(await operationHashBefore(log, batches.at(-1)!.end, batches[0]!.operationId)).toBe(
      batches[0]!.operationHash,
    );
  });

  it('an id used again after the offset does not count: only batches before it do', async () => {
    const dir = await copySession(tools.dir);
    const log = join(dir, 'events.frames');
    const end = (await batchesOf(dir)).at(-1)!.end;
    await appendBatch(dir, [{ kind: 'session/title', payload: { title: 'later' } }], { operationId: 'only-after' });
    expect(await operationHashBefore(log, end, 'only-after')).toBeUndefined();
    const all = await batchesOf(dir);
    expect(await operationHashBefore(log, all.at(-1)!.end, 'only-after')).toBe(all.at(-1)!.operationHash);
  });
});
