import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../src/codec/encode-batch.js';
import { readFrames } from '../../src/codec/read-frames.js';
import { collectLog } from '../support/collect.js';
import { vectorsDir } from '../support/paths.js';

const logPath = join(vectorsDir, 'demo-session-0001', 'events.frames');
const records = readFileSync(join(vectorsDir, 'demo-session-0001.records.jsonl'), 'utf8').trim().split('\n');

async function* once(bytes: Uint8Array) {
  yield bytes;
}

describe('the docs/format.md §16 session (accepted by Reasonix 1.38.11)', () => {
  it('decodes into one committed batch whose digest and events match the vector', async () => {
    const { batches, torn } = await collectLog(logPath);
    expect(torn).toBeNull();
    expect(batches).toHaveLength(1);
    const batch = batches[0]!;
    expect(batch.sha256).toBe('363fd56394e025b16c0da5f0663e896cfb4582d1fefd75cec68845e96e3a185a');
    expect(batch.operationHash).toBe('e56b8a62691974cd68f7a727131163aa806d7c9be4682cd5bc8a11670b358da2');
    expect(batch.events.map((event) => [event.id, event.seq, event.kind])).toEqual([
      ['ev-0001', 1, 'message/complete'],
      ['ev-0002', 2, 'message/complete'],
      ['ev-0003', 3, 'session/title'],
    ]);
    expect(batch.events[1]!.payload!.toString()).toBe(
      '{"message":{"role":"user","id":"msg-0001","origin":"user","content":"Hello \\u003cworld\\u003e \\u0026 co","createdAt":1767323045123}}',
    );
    expect(batch.end).toBe(1277);
  });

  it("rxstore's writer reproduces the vector's raw records byte for byte", async () => {
    const encoded = await encodeBatch(
      {
        operationId: 'demo:1',
        commitId: '0123456789abcdef0123456789abcdef',
        createdAt: '2026-01-02T03:04:05.123456789Z',
        events: [
          {
            id: 'ev-0001',
            kind: 'message/complete',
            payload: { message: { role: 'system', id: 'msg-0000', content: 'You are a test.' } },
          },
          {
            id: 'ev-0002',
            kind: 'message/complete',
            payload: {
              message: {
                role: 'user',
                id: 'msg-0001',
                origin: 'user',
                content: 'Hello <world> & co',
                createdAt: 1767323045123,
              },
            },
          },
          { id: 'ev-0003', kind: 'session/title', payload: { title: 'Demo' } },
        ],
      },
      { sessionId: 'demo-session-0001', writerGeneration: 1, firstSeq: 1, offset: 0 },
    );
    const raws: string[] = [];
    for await (const item of readFrames(once(encoded.bytes))) {
      if (item.type === 'frame') raws.push(item.frame.raw.toString('utf8'));
    }
    expect(raws).toEqual(records);
    expect(raws.map((raw) => Buffer.byteLength(raw))).toEqual([329, 290, 366, 211, 266]);
    expect(encoded.batch.sha256).toBe('363fd56394e025b16c0da5f0663e896cfb4582d1fefd75cec68845e96e3a185a');
    expect(encoded.batch.end).toBe(encoded.bytes.length);
  });
});
