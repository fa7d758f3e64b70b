// Salvage writes the messages it recovers past the damage in batches of at most 256: a session damaged
// near its start, with more than a thousand messages after the damage, is salvaged into several such
// batches, and the real Reasonix resumes it with every one of them in what it sends the model.
import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, openLogSession, salvageSession } from '../../../src/index.js';
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

const TURNS = 600;
const WORKSPACE = '/tmp/rxstore-salvage-many';

function* turns(): Generator<BatchToWrite> {
  for (let turn = 0; turn < TURNS; turn += 1)
    yield {
      operationId: `salvage-many:turn-${turn}`,
      events: [
        complete({ role: 'user', id: messageId(), content: `question ${turn}` }),
        complete({ role: 'assistant', id: messageId(), content: `answer ${turn}` }),
      ],
    };
}

describe.skipIf(!reasonixBinary())(reasonixTitle('salvage of many messages past the damage'), () => {
  it('is written in several batches, and Reasonix resumes it with every recovered message', async () => {
    const { dir } = await createSession({
      storeDir: join(await tempDir('rxstore-salvage-many-'), 'sessions-v4'),
      batches: [...turns()],
    });
    // A byte of the second batch flipped: every message after it is read past the damage.
    const log = join(dir, 'events.frames');
    const file = await open(log, 'r+');
    try {
      const at = Math.floor((await stat(log)).size / TURNS) + 200;
      const byte = Buffer.alloc(1);
      await file.read(byte, 0, 1, at);
      await file.write(Buffer.from([byte[0]! ^ 0xff]), 0, 1, at);
    } finally {
      await file.close();
    }
    const report = await salvageSession(dir);
    expect(report.damage?.code).toBe('RX_DAMAGED_STORE');
    expect(report.recoveredMessages).toBeGreaterThan(2 * TURNS - 6);
    const recoveredBatches: number[] = [];
    for await (const { batch } of (await openLogSession(report.newDir)).events())
      if (batch.operationId.includes(':recovered')) recoveredBatches.push(batch.events.length);
    // The diagnostic event and 256 messages, then 256 a batch, then the rest.
    expect(recoveredBatches.length).toBe(Math.ceil(report.recoveredMessages / 256));
    expect(recoveredBatches.slice(0, -1).every((events, at) => events === (at === 0 ? 257 : 256))).toBe(true);
    const resumed = await resumeWithReasonix(report.newDir, { workspace: WORKSPACE, prompt: 'What survived?' });
    try {
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const sent = resumed.requests[0]!.messages.map((message) => message.content);
      expect(sent).toContain(`answer ${TURNS - 1}`);
      expect(sent.filter((content) => typeof content === 'string' && /^answer \d+$/.test(content)).length).toBe(
        report.recoveredMessages / 2 + report.batchesKept,
      );
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
