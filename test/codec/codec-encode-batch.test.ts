// What encodeBatch writes is what the batch reader reads back: the batch it returns (ids, flags,
// payloads, offsets) is the one decoded from its bytes, and each input it refuses is named.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ContentStore,
  encodeBatch,
  INLINE_PAYLOAD_LIMIT,
  InvalidInputError,
  readBatches,
  readFrames,
  type BatchPlacement,
  type BatchToWrite,
  type CommittedBatch,
} from '../../src/codec/index.js';
import { tempDir } from '../support/temp-dir.js';

const place: BatchPlacement = { sessionId: 'session-1', writerGeneration: 2, firstSeq: 5, offset: 1000 };

/** The batches the reader finds in these bytes, laid at `offset` of a log that continues at `firstSeq`. */
async function readBack(bytes: Buffer, at: BatchPlacement): Promise<CommittedBatch[]> {
  const batches: CommittedBatch[] = [];
  const frames = readFrames(
    (async function* () {
      yield bytes;
    })(),
    { file: 'log', startOffset: at.offset },
  );
  for await (const item of readBatches(frames, { file: 'log', nextSequence: at.firstSeq })) {
    if (item.type === 'batch') batches.push(item.batch);
  }
  return batches;
}

describe('encodeBatch', () => {
  it('returns the batch the reader decodes from its bytes: ids, sequence, flags, payloads and every offset', async () => {
    const input: BatchToWrite = {
      operationId: 'op-1',
      turnId: 'turn-1',
      commitId: 'commit-1',
      createdAt: '2026-12-01T09:00:00.123456789Z',
      events: [
        { kind: 'turn/start', payload: { turnId: 'turn-1' }, id: 'e1' },
        { kind: 'future/note', optional: true, payload: { note: 'x' }, id: 'e2' },
        {
          kind: 'message/complete',
          required: true,
          payloadJson: Buffer.from('{"message": {"role":"user", "content":"kept as written"}}'),
          id: 'e3',
        },
        { kind: 'turn/end', id: 'e4' },
      ],
    };
    const { bytes, batch } = await encodeBatch(input, place);
    const [read] = await readBack(bytes, place);
    expect(batch).toEqual(read);
    expect(batch).toMatchObject({
      commitId: 'commit-1',
      operationId: 'op-1',
      turnId: 'turn-1',
      firstSeq: 5,
      eventCount: 4,
      writerGeneration: 2,
      offset: 1000,
      end: 1000 + bytes.length,
    });
    expect(batch.events.map((event) => [event.id, event.seq, event.optional, event.required])).toEqual([
      ['e1', 5, false, false],
      ['e2', 6, true, false],
      ['e3', 7, false, true],
      ['e4', 8, false, false],
    ]);
    // Each event's offset is its own frame's, in order, after the begin frame.
    const offsets = batch.events.map((event) => event.offset);
    expect(offsets[0]).toBeGreaterThan(1000);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    expect(new Set(offsets).size).toBe(4);
    expect(batch.events[2]!.payload?.toString()).toBe('{"message": {"role":"user", "content":"kept as written"}}');
    expect(batch.events[0]!.payload?.toString()).toBe('{"turnId":"turn-1"}');
    expect(batch.events[3]).not.toHaveProperty('payload');
    expect(batch.events[3]).not.toHaveProperty('payloadRef');
  });

  it('an empty payload is none, as the reader reads it', async () => {
    const { bytes, batch } = await encodeBatch(
      { operationId: 'op', events: [{ kind: 'turn/end', payloadJson: new Uint8Array(0) }] },
      place,
    );
    expect(batch.events[0]).not.toHaveProperty('payload');
    expect(await readBack(bytes, place)).toEqual([batch]);
  });

  it('without a turn, the batch has none', async () => {
    const { bytes, batch } = await encodeBatch(
      { operationId: 'op', events: [{ kind: 'session/title', payload: { title: 't' } }] },
      place,
    );
    expect(batch).not.toHaveProperty('turnId');
    expect(bytes.includes('turnId')).toBe(false);
    expect(await readBack(bytes, place)).toEqual([batch]);
  });

  it(`keeps a payload of ${INLINE_PAYLOAD_LIMIT} bytes inline and moves one byte more to the content store`, async () => {
    const content = new ContentStore(join(await tempDir('rxstore-encode-'), '.content-v1'));
    const json = (size: number) => ({ title: 'x'.repeat(size - '{"title":""}'.length) });
    const { batch } = await encodeBatch(
      {
        operationId: 'op',
        events: [
          { kind: 'session/title', payload: json(INLINE_PAYLOAD_LIMIT) },
          { kind: 'session/title', payload: json(INLINE_PAYLOAD_LIMIT + 1) },
        ],
      },
      { ...place, content },
    );
    expect(batch.events[0]!.payload).toHaveLength(INLINE_PAYLOAD_LIMIT);
    expect(batch.events[0]).not.toHaveProperty('payloadRef');
    const ref = batch.events[1]!.payloadRef!;
    expect(batch.events[1]).not.toHaveProperty('payload');
    expect(ref).toMatchObject({ bytes: INLINE_PAYLOAD_LIMIT + 1, mediaType: 'application/json' });
    expect(JSON.parse((await content.read(ref)).toString())).toEqual(json(INLINE_PAYLOAD_LIMIT + 1));
  });

  it.each([
    {
      what: 'no events',
      input: { operationId: 'op', events: [] },
      at: place,
      message: 'a batch needs at least one event',
    },
    {
      what: 'writer generation 0',
      input: { operationId: 'op', events: [{ kind: 'session/title' }] },
      at: { ...place, writerGeneration: 0 },
      message: 'writerGeneration must be at least 1',
    },
    {
      what: 'a large payload and no content store',
      input: {
        operationId: 'op',
        events: [{ kind: 'session/title', payload: { title: 'x'.repeat(INLINE_PAYLOAD_LIMIT) } }],
      },
      at: place,
      message: `payload of ${INLINE_PAYLOAD_LIMIT + 12} bytes needs a content store`,
    },
  ])('refuses $what by name', async ({ input, at, message }) => {
    const error = await encodeBatch(input, at).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe(message);
  });
});
