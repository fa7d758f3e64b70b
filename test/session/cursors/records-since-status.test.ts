// A session's status changes over its life as its title does: a tool call whose arguments are no
// JSON object makes Reasonix refuse every new turn, a history replace can make it good again. The
// record stream says when, as `read()` says it; damage met mid-log is the read's error (and
// indexSince's problem piece says the verdict: test/store/index-since.test.ts).
import { describe, expect, it } from 'vitest';
import { openLogSession, type RecordsCursor, type SessionFields } from '../../../src/index.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const refusedCall = {
  kind: 'message/complete',
  payload: {
    message: {
      role: 'assistant',
      id: 'rx-status-bad',
      content: '',
      tool_calls: [{ id: 'call_status_bad', name: 'bash', arguments: '[]' }],
    },
  },
};
const itsResult = {
  kind: 'message/complete',
  payload: {
    message: { role: 'tool', id: 'rx-status-bad-result', tool_call_id: 'call_status_bad', name: 'bash', content: 'x' },
  },
};
const goodHistory = {
  kind: 'history/replace',
  payload: { messages: [{ role: 'user', id: 'rx-status-again', content: 'start again' }] },
};

/** Reads since `cursor`, the cursor kept as JSON: the last `session` given (undefined for none), and the cursor. */
async function readOn(
  dir: string,
  cursor: RecordsCursor | undefined,
): Promise<{ session: SessionFields | undefined; cursor: RecordsCursor | undefined }> {
  let session: SessionFields | undefined;
  let last = cursor;
  for await (const piece of (await openLogSession(dir)).recordsSince(cursor, { cursorAtEnd: true })) {
    if (piece.session) session = piece.session;
    last = JSON.parse(JSON.stringify(piece.cursor)) as RecordsCursor;
  }
  return { session, cursor: last };
}

const statusOf = async (dir: string) => (await (await openLogSession(dir)).read()).status;

describe("a session's status as the record stream says it", () => {
  it('turns to turn-refused with the batch Reasonix would refuse a turn after, and back with a history replace', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const first = await readOn(dir, undefined);
    expect(first.session?.status).toBe('ok');
    expect(await statusOf(dir)).toBe('ok');

    await appendBatch(dir, [refusedCall, itsResult]);
    const refused = await readOn(dir, first.cursor);
    expect(await statusOf(dir)).toBe('turn-refused');
    expect(refused.session?.status).toBe('turn-refused');
    expect(refused.cursor?.session.status).toBe('turn-refused');

    // A later good turn does not undo it: the refused call is still in the model's list.
    await appendBatch(dir, [
      { kind: 'message/complete', payload: { message: { role: 'user', id: 'rx-status-later', content: 'go on' } } },
    ]);
    const later = await readOn(dir, refused.cursor);
    expect(await statusOf(dir)).toBe('turn-refused');
    expect(later.session).toBeUndefined();
    expect(later.cursor?.session.status).toBe('turn-refused');

    await appendBatch(dir, [goodHistory]);
    const replaced = await readOn(dir, later.cursor);
    expect(await statusOf(dir)).toBe('ok');
    expect(replaced.session?.status).toBe('ok');

    // Read from no cursor, the whole log gives the same last status.
    expect((await readOn(dir, undefined)).session?.status).toBe('ok');
  });

  it('a message rewritten in place is judged on the log at the end of the read', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await appendBatch(dir, [refusedCall, itsResult]);
    const { cursor } = await readOn(dir, undefined);
    expect(cursor?.session.status).toBe('turn-refused');
    // The refused call's message restated without its calls (its result left alone): judged again at the read's end.
    await appendBatch(dir, [
      {
        kind: 'message/upsert',
        payload: { message: { role: 'assistant', id: 'rx-status-bad', content: 'no call after all' } },
      },
    ]);
    const status = await statusOf(dir);
    expect(status).toBe('ok');
    const after = await readOn(dir, cursor);
    expect(after.session?.status).toBe('ok');
    expect(after.cursor?.session.status).toBe('ok');
  });

  it('damage mid-log: recordsSince throws the refusal read() gives, after the records before it', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await appendBatch(dir, [refusedCall, itsResult], { skipSequences: 3 });
    const { status, refusal } = await (await openLogSession(dir)).read();
    expect(status).toBe('damaged');
    const given: string[] = [];
    const read = (async () => {
      for await (const piece of (await openLogSession(dir)).recordsSince())
        given.push(...piece.records.map((record) => record.key));
    })();
    await expect(read).rejects.toMatchObject({ code: refusal!.code });
    expect(given.length).toBeGreaterThan(0);
  });
});
