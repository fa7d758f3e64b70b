// Salvage is what a person runs on a session that will not open: it must work on one of any size. It
// reads the verified batches, and the messages it recovers past the damage, twice (to judge them, then
// to copy them as the new session is written) instead of holding them, so its memory does not grow with
// the session.
import { cp, open, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../src/codec/encode-batch.js';
import { createSession, openSession, type SalvageReport } from '../../src/index.js';
import { runCliChild } from '../support/cli-child.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

const TURNS = 1200;

/** Turns of a question and a long answer (about 45 KB of text each), made as they are written. */
async function* turns(): AsyncGenerator<BatchToWrite> {
  for (let turn = 0; turn < TURNS; turn += 1) {
    const answer = Array.from({ length: 1000 }, (_, line) => `turn ${turn} line ${line}: the answer goes on.`).join(
      '\n',
    );
    yield {
      operationId: `salvage-large:turn-${turn}`,
      events: [
        complete({ role: 'user', id: messageId(), content: `question ${turn}` }),
        complete({ role: 'assistant', id: messageId(), content: answer }),
      ],
    };
  }
}

/** A copy of `dir` in a store of its own, with the byte at `at(size)` of its log flipped; the log's size. */
async function damagedCopy(dir: string, at: (size: number) => number): Promise<{ dir: string; size: number }> {
  const copy = join(await tempDir('rxstore-salvage-large-'), 'sessions-v4', basename(dir));
  await cp(dir, copy, { recursive: true });
  const log = join(copy, 'events.frames');
  const { size } = await stat(log);
  const file = await open(log, 'r+');
  try {
    const byte = Buffer.alloc(1);
    await file.read(byte, 0, 1, at(size));
    byte[0] = byte[0]! ^ 0xff;
    await file.write(byte, 0, 1, at(size));
  } finally {
    await file.close();
  }
  return { dir: copy, size };
}

/** `salvage --json` of `dir` in a heap of 48 MiB (the session's messages held whole take more than 60 MiB); its report. */
async function salvagedInASmallHeap(dir: string): Promise<SalvageReport> {
  const env = { ...process.env, NODE_OPTIONS: '--max-old-space-size=48' };
  const salvaged = await runCliChild(['salvage', dir, '--json'], { env });
  expect(salvaged.stderr).toBe('');
  expect(salvaged.code).toBe(0);
  return JSON.parse(salvaged.stdout) as SalvageReport;
}

describe('salvage of a large damaged session', () => {
  let whole: string;
  beforeAll(async () => {
    ({ dir: whole } = await createSession({
      storeDir: join(await tempDir('rxstore-salvage-large-'), 'sessions-v4'),
      batches: turns(),
    }));
  });

  it('writes the verified batches in a heap far smaller than the session, and the new session reads whole', async () => {
    // A byte near the end flipped: nearly every batch still verifies, and all of them must be copied.
    const { dir, size } = await damagedCopy(whole, (size) => size - 20_000);
    const verified = (await (await openSession(dir)).read({ keep: 'index' })).batches;
    expect(verified).toBeGreaterThan(TURNS / 2);
    const report = await salvagedInASmallHeap(dir);
    expect(report.damage).not.toBeNull();
    expect(report.batchesKept).toBe(verified);
    const read = await (await openSession(report.newDir)).read({ keep: 'index' });
    expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(read.batches).toBeGreaterThanOrEqual(report.batchesKept);
    expect((await stat(join(report.newDir, 'events.frames'))).size).toBeGreaterThan(size / 2);
  });

  it('writes the messages it recovers past damage near the start in the same heap, every one of them', async () => {
    // A byte of the first batches flipped: nearly every message is read past the damage.
    const { dir } = await damagedCopy(whole, () => 2_000);
    const report = await salvagedInASmallHeap(dir);
    expect(report.damage).not.toBeNull();
    expect(report.batchesKept).toBeLessThan(3);
    // Every message but the one whose frame holds the flipped byte.
    expect(report.recoveredMessages + 2 * report.batchesKept).toBe(2 * TURNS - 1);
    const salvaged = await openSession(report.newDir);
    const read = await salvaged.read({ keep: 'index' });
    expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    // Every message, the last answer whole, as it was written.
    let [count, last] = [0, undefined as unknown];
    for await (const entry of salvaged.transcript()) [count, last] = [count + 1, entry.message];
    expect(count).toBe(2 * TURNS - 1);
    expect(last).toMatchObject({
      role: 'assistant',
      content: expect.stringMatching(/turn 1199 line 999: the answer goes on\.$/),
    });
  });
});
