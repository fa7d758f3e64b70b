import { describe, expect, it } from 'vitest';
import { openLogSession, type RecordChange } from '../../../src/index.js';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { drain } from '../../support/drain.js';
import { CPU_CLOCK_ONLY, withinCpuTime } from '../../support/cpu-budget.js';
import { fixture } from '../../support/fixtures.js';
import {
  frameBoundaries,
  growingCopy,
  readInto,
  RecordIndex,
  wholeRecords,
} from '../../support/sessions/record-index.js';
import { complete, typedMessage as user } from '../../support/sessions/messages.js';

/**
 * Sessions a real Reasonix wrote, with batches appended that rewrite what came before (an edited
 * message, a retract, a rewritten call, a late result, a history replace, an import, messages
 * without ids, a title given later): read since a cursor after every batch and from the start, the
 * records add up by key to `records()` of the whole.
 */
const assistant = (id: string | undefined, content: string, calls: { id: string; command: string }[] = []) => ({
  role: 'assistant',
  ...(id ? { id } : {}),
  content,
  ...(calls.length
    ? {
        tool_calls: calls.map((call) => ({
          id: call.id,
          name: 'bash',
          arguments: JSON.stringify({ command: call.command }),
        })),
      }
    : {}),
});
const result = (id: string, callId: string, output: string, exitCode = 0) => ({
  role: 'tool',
  id,
  content: output,
  tool_call_id: callId,
  name: 'bash',
  tool_execution: { kind: 'shell', state: exitCode === 0 ? 'completed' : 'failed', exitCode, durationMs: 5 },
});
const upsert = (message: object): EventToWrite => ({ kind: 'message/upsert', payload: { message } });

/** Batches appended to the tool-calls fixture, in order; each is one piece a reader may meet. */
const REWRITES: { what: string; batch: EventToWrite[] }[] = [
  {
    what: 'an edited user message',
    batch: [
      upsert({ ...user('01M8NKD7BPREDPDY7Y2RG7D1E3', 'List every file here, please.'), createdAt: 1796021329270 }),
    ],
  },
  {
    what: 'a call and its result in later batches',
    batch: [
      complete(user('01Z0000000000000000000000A', 'run two things')),
      complete(
        assistant('01Z0000000000000000000000B', 'running', [
          { id: 'call_a', command: 'echo a' },
          { id: 'call_b', command: 'echo b' },
        ]),
      ),
    ],
  },
  { what: 'the first result', batch: [complete(result('01Z0000000000000000000000C', 'call_a', 'a\n'))] },
  { what: 'a title given later', batch: [{ kind: 'session/title', payload: { title: 'Named later' } }] },
  { what: 'the second result', batch: [complete(result('01Z0000000000000000000000D', 'call_b', 'b\n', 1))] },
  {
    what: 'a result for a call never made',
    batch: [complete(result('01Z0000000000000000000000L', 'call_nowhere', 'stray\n'))],
  },
  {
    what: 'a result that names no call',
    batch: [complete({ role: 'tool', id: '01Z0000000000000000000000M', name: 'bash', content: 'nameless\n' })],
  },
  {
    what: 'a retracted result that answered no call',
    batch: [{ kind: 'message/retract', payload: { messageIds: ['01Z0000000000000000000000L'] } }],
  },
  {
    what: 'a call and its result',
    batch: [
      complete(assistant('01Z0000000000000000000000N', 'one more', [{ id: 'call_n', command: 'echo n' }])),
      complete(result('01Z0000000000000000000000O', 'call_n', 'n\n')),
    ],
  },
  {
    what: 'the call taken out of its message: its result answers none',
    batch: [upsert(assistant('01Z0000000000000000000000N', 'no call after all'))],
  },
  {
    what: 'a call waiting for its result',
    batch: [complete(assistant('01Z0000000000000000000000P', 'and another', [{ id: 'call_p', command: 'echo p' }]))],
  },
  {
    what: 'the waiting call taken out of its message',
    batch: [upsert(assistant('01Z0000000000000000000000P', 'none here either'))],
  },
  {
    what: 'the result of the call taken out: it answers none',
    batch: [complete(result('01Z0000000000000000000000Q', 'call_p', 'p\n'))],
  },
  {
    what: 'a retracted result: its call has none again',
    batch: [{ kind: 'message/retract', payload: { messageIds: ['01Z0000000000000000000000D'] } }],
  },
  {
    what: 'a late result after the retract',
    batch: [complete(result('01Z0000000000000000000000E', 'call_b', 'b again\n'))],
  },
  {
    what: 'a rewritten call',
    batch: [upsert(assistant('01Z0000000000000000000000B', 'running one', [{ id: 'call_a', command: 'echo A' }]))],
  },
  {
    what: 'a retracted user message',
    batch: [{ kind: 'message/retract', payload: { messageIds: ['01Z0000000000000000000000A'] } }],
  },
  {
    what: 'a history replace (a rewind)',
    // A message without an id (Reasonix writes none with message/complete): keyed by its place. Only one:
    // Reasonix refuses a transcript with two (both are its record `m::notice:0`).
    batch: [
      {
        kind: 'history/replace',
        payload: {
          messages: [
            user('01Z0000000000000000000000G', 'start again'),
            assistant(undefined, 'from the top', [{ id: 'call_d', command: 'ls' }]),
            user('01Z0000000000000000000000R', 'an id again'),
          ],
        },
      },
    ],
  },
  {
    what: 'the result of a call of a message without an id',
    batch: [complete(result('01Z0000000000000000000000F', 'call_d', 'notes.txt\n'))],
  },
  {
    what: 'an id used before the replace, used again after it',
    batch: [complete(user('01Z0000000000000000000000A', 'the id is free again'))],
  },
  { what: 'a new message after the replace', batch: [complete(assistant('01Z0000000000000000000000H', 'done'))] },
  {
    what: 'an import',
    batch: [
      {
        kind: 'legacy/import',
        payload: {
          messages: [
            user('01Z0000000000000000000000I', 'imported'),
            assistant('01Z0000000000000000000000J', 'imported answer'),
          ],
        },
      },
    ],
  },
  {
    what: 'an upsert of an absent id (appended)',
    batch: [upsert(user('01Z0000000000000000000000K', 'appended by upsert'))],
  },
];

async function rewrittenSession(): Promise<string> {
  const dir = await copySession(fixture('tool-calls').dir);
  for (const { batch } of REWRITES) await appendBatch(dir, batch);
  return dir;
}

describe('records since a cursor, over batches that rewrite what came before', () => {
  it(
    'add up to records() after every batch, read one batch at a time and cut at every batch boundary',
    () =>
      withinCpuTime(async () => {
        const dir = await rewrittenSession();
        const boundaries = await frameBoundaries(dir);
        const ends = (await openLogSession(dir).then((session) => session.readSince())).batches.map(
          (batch) => batch.batch.end,
        );
        const copy = await growingCopy(dir);
        const index = new RecordIndex();
        let cursor;
        for (const end of ends) {
          await copy.growTo(end);
          cursor = await readInto(copy.dir, index, cursor);
          const whole = await wholeRecords(copy.dir);
          expect(whole.byKey.size).toBe(whole.count);
          expect(new Map([...index.current()].sort()), `after the batch ending at ${end}`).toEqual(
            new Map([...whole.byKey].sort()),
          );
          expect(index.transcript, `the transcript after the batch ending at ${end}`).toEqual(whole.transcript);
        }
        // And from the start, and from every boundary on.
        for (const cut of boundaries) {
          const again = await growingCopy(dir);
          const pieces = new RecordIndex();
          await again.growTo(cut);
          let from = await readInto(again.dir, pieces, undefined);
          await again.growTo(boundaries.at(-1)!);
          from = await readInto(again.dir, pieces, from);
          const whole = await wholeRecords(dir);
          expect(new Map([...pieces.current()].sort()), `cut at ${cut}`).toEqual(new Map([...whole.byKey].sort()));
          expect(pieces.transcript, `the transcript, cut at ${cut}`).toEqual(whole.transcript);
        }
      }),
    CPU_CLOCK_ONLY,
  );

  it('an edited message replaces its record, a retract removes it, and two calls of one message have keys of their own', async () => {
    const dir = await rewrittenSession();
    const { items } = await drain((await openLogSession(dir)).recordsSince());
    const changes: RecordChange[] = items.flatMap((piece) => piece.records);
    const edited = changes.filter(
      (change) => change.type === 'message' && change.messageId === '01M8NKD7BPREDPDY7Y2RG7D1E3',
    );
    expect(edited.map((change) => change.type === 'message' && change.text)).toEqual([
      'List the files in this workspace.',
      'List every file here, please.',
    ]);
    expect(new Set(edited.map((change) => change.key)).size).toBe(1);
    const calls = changes.filter(
      (change) => change.type === 'command' && change.messageId === '01Z0000000000000000000000B',
    );
    expect(new Set(calls.map((change) => change.type === 'command' && change.callId))).toEqual(
      new Set(['call_a', 'call_b']),
    );
    expect(new Set(calls.map((change) => change.key)).size).toBe(2);
    const retracted = changes.find(
      (change) => change.type === 'message' && change.messageId === '01Z0000000000000000000000A',
    )!;
    expect(changes).toContainEqual({ type: 'removed', key: retracted.key, sessionId: retracted.sessionId });
  });

  it('the title given later comes in a piece of its own, and records keep the title they were given with', async () => {
    const dir = await rewrittenSession();
    const { items } = await drain((await openLogSession(dir)).recordsSince());
    const titles = items.filter((piece) => piece.session).map((piece) => piece.session!.title);
    expect(titles.filter((title, at) => title !== titles[at - 1])).toEqual([null, 'Named later']);
    const named = items.findIndex((piece) => piece.session?.title === 'Named later');
    const titled = (from: number, to: number) =>
      items
        .slice(from, to)
        .flatMap((piece) => piece.records.flatMap((record) => (record.type === 'removed' ? [] : [record.title])));
    expect(new Set(titled(0, named))).toEqual(new Set([null]));
    // A message committed after the title carries it.
    const later = items
      .slice(named)
      .flatMap((piece) => piece.records)
      .filter((record) => record.type === 'message' && record.messageId === '01Z0000000000000000000000H');
    expect(later.map((record) => record.type !== 'removed' && record.title)).toEqual(['Named later']);
    expect(titled(named, items.length).length).toBeGreaterThan(0);
  });
});
