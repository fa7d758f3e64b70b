import { describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../src/codec/encode-batch.js';
import { goJson } from '../../src/codec/go-json/go-json.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { readSessionEvents } from '../../src/session/reading/read-events.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { seededRandom } from '../support/seeded-random.js';
import { tempDir } from '../support/temp-dir.js';

function randomBatches(seed: number): BatchToWrite[] {
  const random = seededRandom(seed);
  let id = 0;
  return Array.from({ length: 1 + random.int(6) }, (_, batch) => ({
    operationId: `prop:${seed}:${batch}`,
    ...(random.next() < 0.5 ? { turnId: `turn_${seed}_${batch}` } : {}),
    events: Array.from({ length: 1 + random.int(5) }, () => {
      const size = random.next() < 0.1 ? 70_000 + random.int(20_000) : random.int(300);
      return random.next() < 0.8
        ? {
            kind: 'message/complete',
            payload: {
              message: {
                role: random.pick(['user', 'assistant', 'tool']),
                id: `m${(id += 1)}`,
                content: random.text(size),
              },
            },
          }
        : {
            kind: `x-rxstore/${random.int(3)}`,
            optional: true,
            payload: { n: random.int(1000), text: random.text(20) },
          };
    }),
  }));
}

describe('write then read gives back what was written', () => {
  it('holds for random batches, large payloads included (seeded)', async () => {
    for (let seed = 1; seed <= 25; seed += 1) {
      const store = await tempDir();
      const written = randomBatches(seed);
      const created = await createSession({ storeDir: store, batches: written });
      const read = await readSession(created.dir);
      expect(read.status, `seed ${seed}: ${JSON.stringify(read.problems)}`).toBe('ok');
      expect(read.batches).toBe(written.length);

      const readBack: { kind: string; payload: string }[] = [];
      for await (const item of readSessionEvents(created.dir)) {
        if (item.type !== 'batch') continue;
        item.value.batch.events.forEach((event, index) =>
          readBack.push({ kind: event.kind, payload: goJson(item.value.payloads[index]) }),
        );
      }
      expect(readBack).toEqual(
        written.flatMap((batch) => batch.events.map((event) => ({ kind: event.kind, payload: goJson(event.payload) }))),
      );
      expect(read.payloadRefs).toBe(readBack.filter((event) => Buffer.byteLength(event.payload) > 65_536).length);
    }
  });
});
