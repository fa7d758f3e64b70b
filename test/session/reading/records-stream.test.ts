// `records()` and the transcript of a sessions-v4 log too large to read whole stream (the log read
// twice): they must give exactly the records and messages of the transcript held whole, in the same
// order, whatever later batches rewrote, and end in the refusal `read()` reports after what precedes it.
import { readdirSync } from 'node:fs';
import { copyFile, rm, truncate } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RxError } from '../../../src/index.js';
import { streamedRecords, streamedTranscript } from '../../../src/session/verdict/streamed-records.js';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import {
  heldWholeBoth,
  recordsHeldWhole,
  streamedBoth,
  transcriptStreamed,
  type ReadTwoWays,
} from '../../support/sessions/records-two-ways.js';
import { readSession, readSessionOn } from '../../../src/session/verdict/read-session.js';
import { writeSession } from '../../../bench/support/write-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { complete, toolResult, typedMessage as user } from '../../support/sessions/messages.js';
import { repoRoot } from '../../support/paths.js';
import { tempDir } from '../../support/temp-dir.js';

/** The records and the transcript of the session held whole (a replay that keeps every message), and its refusal. */
async function heldWhole(dir: string): Promise<ReadTwoWays> {
  const read = await readSession(dir);
  const both = heldWholeBoth(read, basename(dir));
  // Refused at an event: the records are those of the batches before it, as the records since a cursor give them.
  const refusedAt = read.projection.refusedAt;
  if (!read.refusal || refusedAt === undefined) return both;
  const before = await readSessionOn('this', dir, { endBefore: refusedAt });
  return { ...both, records: recordsHeldWhole({ ...before, refusal: read.refusal }, basename(dir)).records };
}

/**
 * What the streamed records and transcript give (what `records()`, `transcript()` and `personView()`
 * read of a session too large to read whole, and of any once it is not held), and the code of the
 * error they end in.
 */
async function streamed(dir: string): Promise<ReadTwoWays> {
  const id = basename(dir);
  return streamedBoth(
    () => streamedRecords(dir, id),
    () => streamedTranscript(dir),
  );
}

const caller = (id: string | undefined, content: string, calls: string[]) => ({
  role: 'assistant',
  ...(id ? { id } : {}),
  content,
  tool_calls: calls.map((call) => ({ id: call, name: 'bash', arguments: JSON.stringify({ command: `echo ${call}` }) })),
});
const upsert = (message: object): EventToWrite => ({ kind: 'message/upsert', payload: { message } });

/** Batches that rewrite what came long before them, appended to the tool-calls fixture. */
const REWRITES: EventToWrite[][] = [
  [complete(user('01Z0000000000000000000000A', 'run two things'))],
  [complete(caller('01Z0000000000000000000000B', 'running', ['call_a', 'call_b']))],
  [complete(toolResult('01Z0000000000000000000000C', 'call_b', { content: 'b\n' }))],
  [{ kind: 'session/title', payload: { title: 'Named later' } }],
  [complete(toolResult('01Z0000000000000000000000D', 'call_a', { content: 'a\n' }))],
  // Results that answer no call: one for a call never made, one that names none.
  [complete(toolResult('01Z0000000000000000000000L', 'call_nowhere', { content: 'stray\n' }))],
  [complete(toolResult('01Z0000000000000000000000M', undefined, { content: 'nameless\n' }))],
  // The first message of the session, edited at the end: every record after it waits for it.
  [upsert({ ...user('01M8NKD7BPREDPDY7Y2RG7D1E3', 'List every file here, please.'), createdAt: 1796021329270 })],
  [{ kind: 'message/retract', payload: { messageIds: ['01Z0000000000000000000000C'] } }],
  [complete(toolResult('01Z0000000000000000000000E', 'call_b', { content: 'b again\n' }))],
  [upsert(caller('01Z0000000000000000000000B', 'running one', ['call_a']))],
  [
    {
      kind: 'history/replace',
      payload: {
        messages: [
          user('01Z0000000000000000000000G', 'start again'),
          caller(undefined, 'from the top', ['call_d']),
          user('01Z0000000000000000000000N', 'with an id'),
          caller('01Z0000000000000000000000P', 'and again', ['call_e']),
        ],
      },
    },
  ],
  [complete(toolResult('01Z0000000000000000000000F', 'call_e', { content: 'e\n' }))],
  [complete(toolResult('01Z0000000000000000000000H', 'call_d', { content: 'd\n' }))],
  [upsert(user('01Z0000000000000000000000G', 'start again, edited'))],
];

/** A history holding one id twice, as Reasonix keeps it (both places), then the first place rewritten. */
const ONE_ID_TWICE: EventToWrite[][] = [
  [
    {
      kind: 'history/replace',
      payload: {
        messages: [
          { role: 'system', id: '01Z0000000000000000000000J', content: 'sys' },
          user('01Z0000000000000000000000J', 'one id twice'),
          user('01Z0000000000000000000000K', 'asked'),
          { role: 'assistant', id: '01Z0000000000000000000000K', content: 'answered under the same id' },
        ],
      },
    },
  ],
  [upsert(user('01Z0000000000000000000000J', 'the first of two places, edited'))],
];

describe('records() streams the records of the transcript held whole', () => {
  it('of a history holding one id twice: each place found (one was, and the read ended "changed")', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    for (const [at, batch] of ONE_ID_TWICE.entries()) {
      await appendBatch(dir, batch);
      const whole = await heldWhole(dir);
      expect(whole.records.length).toBeGreaterThan(0);
      expect(await streamed(dir), `after batch ${at}`).toEqual(whole);
    }
  });

  it('of every session log in the fixtures', async () => {
    const fixtures = join(repoRoot, 'fixtures');
    const logs = readdirSync(fixtures, { recursive: true, encoding: 'utf8' }).filter(
      (path) => basename(path) === 'events.frames',
    );
    expect(logs.length).toBeGreaterThan(5);
    for (const log of logs) {
      const dir = join(fixtures, dirname(log));
      expect(await streamed(dir), dir).toEqual(await heldWhole(dir));
    }
  });

  it('after each batch that rewrites, retracts or replaces what came long before it', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    for (const [at, batch] of REWRITES.entries()) {
      await appendBatch(dir, batch);
      const whole = await heldWhole(dir);
      expect(whole.records.length).toBeGreaterThan(0);
      expect(await streamed(dir), `after batch ${at}`).toEqual(whole);
    }
    const last = await streamed(dir);
    // One message without an id in the replace: two would hold one record key twice, which Reasonix refuses.
    expect(last.refusal).toBeUndefined();
    // The edit at the end stands where the message stood, and the replace took everything before it.
    expect(last.records.map((record) => record.type === 'message' && record.text)).toContain('start again, edited');
    expect(last.records.every((record) => record.title === 'Named later')).toBe(true);
    // The results that answered no call were taken by the replace with the rest.
    const grown = await streamed(
      await copySession(fixture('tool-calls').dir).then(async (copy) => {
        for (const batch of REWRITES.slice(0, 7)) await appendBatch(copy, batch);
        return copy;
      }),
    );
    expect(grown.records.filter((record) => record.type === 'result').map((record) => record.output)).toEqual([
      'stray\n',
      'nameless\n',
    ]);
  });

  it('of a generated session of turns, calls and content-store payloads', async () => {
    const store = join(await tempDir('rxstore-generated-'), 'sessions-v4');
    const { dir } = await writeSession(store, 'streamedrecords'.padEnd(32, '0'), {
      rawBytes: 512 * 1024,
      seed: 11,
      workspace: '/tmp/rxstore-generated-ws',
    });
    const whole = await heldWhole(dir);
    expect(whole.records.length).toBeGreaterThan(20);
    expect(await streamed(dir)).toEqual(whole);
  });

  it('a session Reasonix refuses: the records before the refusal, then the refusal read() reports', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await appendBatch(dir, [complete(user('01Z0000000000000000000000A', 'before the damage'))]);
    await appendBatch(dir, [complete(caller('01Z0000000000000000000000B', 'a call left open', ['call_x']))]);
    // A second message with an id already used: Reasonix refuses the session there.
    await appendBatch(dir, [complete(user('01Z0000000000000000000000A', 'the id again'))]);
    const whole = await heldWhole(dir);
    expect(whole.refusal).toBeDefined();
    const got = await streamed(dir);
    expect(got).toEqual(whole);
    expect(got.records.map((record) => record.type === 'message' && record.text)).toContain('before the damage');
  });

  it('a log cut after the first record ends the records in a coded error, never in a shorter list', async () => {
    const store = join(await tempDir('rxstore-generated-'), 'sessions-v4');
    // Long enough that the second pass reads its log in more than one chunk.
    const { dir } = await writeSession(store, 'cutbetweenpasses'.padEnd(32, '0'), {
      rawBytes: 4 * 1024 * 1024,
      seed: 5,
      workspace: '/tmp/rxstore-generated-ws',
    });
    const whole = await heldWhole(dir);
    const records = streamedRecords(dir, basename(dir))[Symbol.asyncIterator]();
    const first = await records.next();
    expect(first.done).toBe(false);
    await truncate(join(dir, 'events.frames'), 1024);
    let given = 1;
    const ended = await (async () => {
      for (let next = await records.next(); !next.done; next = await records.next()) given += 1;
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ended).toBeInstanceOf(RxError);
    expect((ended as RxError).family).toBe('damaged');
    expect(given).toBeLessThan(whole.records.length);
  });

  it('a log written over between the passes, every message where it was, ends in a coded error, never in a mix', async () => {
    // Two logs of the same messages, ids and sequences, but for the words of the last one.
    const [dir, other] = [await copySession(fixture('tool-calls').dir), await copySession(fixture('tool-calls').dir)];
    await appendBatch(dir, [complete(user('01Z0000000000000000000000A', 'the words first read'))]);
    await appendBatch(other, [complete(user('01Z0000000000000000000000A', 'other words, as long'))]);
    // The log is written over right after the first pass: the second reads the other's batches.
    const writtenOver = async () => {
      const first = await readSession(dir, { keep: 'index' });
      await copyFile(join(other, 'events.frames'), join(dir, 'events.frames'));
      return first;
    };
    for (const stream of [streamedTranscript(dir, writtenOver), streamedRecords(dir, basename(dir), writtenOver)]) {
      await expect(transcriptStreamed(stream as AsyncIterable<never>)).resolves.toMatchObject({
        refusal: 'RX_DAMAGED_STORE',
      });
      await copyFile(join(fixture('tool-calls').dir, 'events.frames'), join(dir, 'events.frames'));
      await appendBatch(dir, [complete(user('01Z0000000000000000000000A', 'the words first read'))]);
    }
  });

  it('a session with no messages ends in the refusal its first pass found, the log read no second time', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await rm(join(dir, 'events.frames'));
    const whole = await heldWhole(dir);
    expect(whole.refusal).toBe('RX_LOG_MISSING');
    expect(await streamed(dir)).toEqual(whole);
  });
});
