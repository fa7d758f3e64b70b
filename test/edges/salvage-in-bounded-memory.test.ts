// Salvage is what a person runs on a session that will not open: it must work on one of any size. It
// reads the verified batches twice (to judge them, then to copy them as the new session is written)
// instead of holding them, so its memory does not grow with the session.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../src/codec/encode-batch.js';
import { createSession, openSession } from '../../src/index.js';
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

describe('salvage of a large damaged session', () => {
  it('writes the verified batches in a heap far smaller than the session, and the new session reads whole', async () => {
    const storeDir = join(await tempDir('rxstore-salvage-large-'), 'sessions-v4');
    const { dir } = await createSession({ storeDir, batches: turns() });
    const log = join(dir, 'events.frames');
    const { size } = await stat(log);
    // A byte near the end flipped: nearly every batch still verifies, and all of them must be copied.
    const file = await open(log, 'r+');
    try {
      const at = size - 20_000;
      const byte = Buffer.alloc(1);
      await file.read(byte, 0, 1, at);
      byte[0] = byte[0]! ^ 0xff;
      await file.write(byte, 0, 1, at);
    } finally {
      await file.close();
    }
    const verified = (await (await openSession(dir)).read({ keep: 'index' })).batches;
    expect(verified).toBeGreaterThan(TURNS / 2);
    // The session's messages held whole take more than 60 MiB of heap.
    const env = { ...process.env, NODE_OPTIONS: '--max-old-space-size=48' };
    const salvaged = await runCliChild(['salvage', dir, '--json'], { env });
    expect(salvaged.stderr).toBe('');
    expect(salvaged.code).toBe(0);
    const report = JSON.parse(salvaged.stdout) as { newDir: string; batchesKept: number; damage: unknown };
    expect(report.damage).not.toBeNull();
    expect(report.batchesKept).toBe(verified);
    const read = await (await openSession(report.newDir)).read({ keep: 'index' });
    expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(read.batches).toBeGreaterThanOrEqual(report.batchesKept);
    expect((await stat(join(report.newDir, 'events.frames'))).size).toBeGreaterThan(size / 2);
  });
});
