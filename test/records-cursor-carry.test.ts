// A records cursor carries across batches what the next records need: the time of the last message,
// the workspace and title known so far, and the records waiting behind a call's result. It is plain
// JSON an indexer stores; anything else given as one is refused with CursorMismatchError naming why.
import { describe, expect, it } from 'vitest';
import { CursorMismatchError } from '../src/errors/index.js';
import type { IndexRecord } from '../src/session/replay/index-records.js';
import { recordsSince, recordsSinceNamed, type RecordsCursor, type RecordsSince } from '../src/session/cursors/records-since.js';
import { appendBatches } from '../src/session/writing/append-batches.js';
import { appendBatch, copySession, editLog, framesOf } from './support/faults.js';
import { fixture } from './support/fixtures.js';
import { complete, messageId } from './support/sample-session.js';
import { StrictPayloadError } from '../src/errors/index.js';
import { readSession } from '../src/session/reading/read-session.js';

const plain = fixture('plain-chat');
const tools = fixture('tool-calls');

async function all(items: AsyncIterable<RecordsSince>): Promise<RecordsSince[]> {
  const seen: RecordsSince[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

const refusal = async (given: unknown): Promise<string> => {
  const error = await all(recordsSince(plain.dir, plain.id, { workspace: null }, given)).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CursorMismatchError);
  return (error as Error).message;
};

describe('a records cursor', () => {
  it('carries the title and workspace known so far, and times stay strictly after the last one given', async () => {
    const dir = await copySession(plain.dir);
    const pieces = await all(recordsSince(dir, plain.id, { workspace: null }, undefined, { maxBatches: 1000 }));
    const cursor = pieces.at(-1)!.cursor;
    expect(cursor.version).toBe(2);
    expect(cursor.waiting).toEqual([]);
    // plain-chat's host context names the workspace; it has no title.
    expect(cursor.workspace).toBe(plain.workspace);
    expect(cursor.title).toBeNull();
    const lastGiven = pieces.flatMap((piece) => piece.records).at(-1)!;
    expect(cursor.lastTime).toBe(Date.parse(lastGiven.time));

    // Appended now with no time of its own, after a cursor that says the last message was given in 2100.
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'a later question' })]);
    const later = Date.UTC(2100, 0, 1);
    const carried: RecordsCursor = { ...cursor, lastTime: later, workspace: '/carried/workspace', title: 'Carried title' };
    const [next, ...more] = await all(recordsSince(dir, plain.id, { workspace: null }, JSON.parse(JSON.stringify(carried))));
    expect(more).toEqual([]);
    expect(next!.records).toEqual([
      expect.objectContaining({ type: 'message', role: 'user', text: 'a later question', workspace: '/carried/workspace', title: 'Carried title', time: new Date(later + 1).toISOString() }),
    ]);
    expect(next!.cursor).toMatchObject({ lastTime: later + 1, workspace: '/carried/workspace', title: 'Carried title', waiting: [] });

    // A workspace the caller knows (a desktop session's header) is every record's.
    const given = await all(recordsSince(dir, plain.id, { workspace: '/given/by/caller' }, carried));
    expect(given.flatMap((piece) => piece.records).map((record) => record.workspace)).toEqual(['/given/by/caller']);
    expect(given.at(-1)!.cursor.workspace).toBe('/given/by/caller');

    // The workspace the session names wins over the one carried, and is asked for once, when the first batch is new.
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'and another' })]);
    let asked = 0;
    const named = await all(
      recordsSinceNamed(dir, plain.id, async () => {
        asked += 1;
        return '/named/by/header';
      }, carried),
    );
    expect(asked).toBe(1);
    expect(named).toHaveLength(2);
    expect(named.flatMap((piece) => piece.records).map((record) => record.workspace)).toEqual(['/named/by/header', '/named/by/header']);
    // Nothing new after the last cursor: nothing given, nothing asked.
    expect(await all(recordsSinceNamed(dir, plain.id, async () => {
      asked += 1;
      return null;
    }, named.at(-1)!.cursor))).toEqual([]);
    expect(asked).toBe(1);
  });

  it('a call waits in the cursor for its result, with the records behind it, and is given once with its outcome', async () => {
    const pieces = await all(recordsSince(tools.dir, tools.id, { workspace: null }, undefined, { maxBatches: 1000 }));
    const at = pieces.findIndex((piece) => piece.cursor.waiting.some((item) => 'call' in item && item.call.call.name === 'bash'));
    expect(at).toBeGreaterThanOrEqual(0);
    const waiting = pieces[at]!.cursor;
    // Resumed from the stored cursor, the rest gives what the whole read gives after that point.
    const rest = await all(recordsSince(tools.dir, tools.id, { workspace: null }, JSON.parse(JSON.stringify(waiting))));
    const fromWhole = pieces.slice(at + 1).flatMap((piece) => piece.records);
    expect(rest.flatMap((piece) => piece.records)).toEqual(fromWhole);
    const commands = fromWhole.filter((record) => record.type === 'command');
    expect(commands[0]).toMatchObject({ type: 'command', tool: 'bash', state: 'completed', exitCode: 0 });
    // Every record is given exactly once over the pieces, in time order.
    const times = pieces.flatMap((piece) => piece.records).map((record) => Date.parse(record.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('calls of a turn still open wait until more than 256 records wait, the oldest then given without a result; a turn that ends gives them all', async () => {
    const callIds = Array.from({ length: 300 }, (_, at) => `call_rxstore_unanswered_${at}`);
    const calls = callIds.map((id) => complete({ role: 'assistant', id: messageId(), content: '', tool_calls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `echo ${id}` }) }] }));
    const turnId = 'turn_00000000000000000000000000000300';
    const { cursor } = (await all(recordsSince(plain.dir, plain.id, { workspace: null }))).at(-1)!;
    const commandsOf = (piece: RecordsSince) => piece.records.filter((record): record is Extract<IndexRecord, { type: 'command' }> => record.type === 'command');

    const open = await copySession(plain.dir);
    await appendBatches(open, [{ operationId: 'rxstore-test:open-turn', turnId, events: [{ kind: 'turn/start', payload: {} }, ...calls] }], { validate: false });
    const [piece] = await all(recordsSince(open, plain.id, { workspace: null }, cursor));
    expect(piece!.cursor.waiting).toHaveLength(256);
    expect(commandsOf(piece!).map((record) => record.command)).toEqual(callIds.slice(0, 300 - 256).map((id) => `echo ${id}`));
    expect(commandsOf(piece!).every((record) => record.state === undefined && record.exitCode === undefined)).toBe(true);

    const ended = await copySession(plain.dir);
    await appendBatches(ended, [{ operationId: 'rxstore-test:ended-turn', turnId, events: [{ kind: 'turn/start', payload: {} }, ...calls.slice(0, 3), { kind: 'turn/end', payload: { status: 'completed' } }] }], { validate: false });
    const [whole] = await all(recordsSince(ended, plain.id, { workspace: null }, cursor));
    expect(whole!.cursor.waiting).toEqual([]);
    expect(commandsOf(whole!).map((record) => record.command)).toEqual(callIds.slice(0, 3).map((id) => `echo ${id}`));
  });

  it.each([
    ['another version', (cursor: RecordsCursor) => ({ ...cursor, version: 3 }), /^not a records cursor rxstore made: version: /],
    ['ids that are not base64', (cursor: RecordsCursor) => ({ ...cursor, seen: { ...cursor.seen, ids: 'not base64!' } }), /^not a records cursor rxstore made: seen\.ids: /],
    ['no ids at version 2', (cursor: RecordsCursor) => ({ ...cursor, seen: undefined }), /^not a records cursor rxstore made: seen: /],
    ['a log cursor of another shape', (cursor: RecordsCursor) => ({ ...cursor, log: { ...cursor.log, offset: -1 } }), /^not a records cursor rxstore made: log\.offset: /],
    ['a time that is not a number', (cursor: RecordsCursor) => ({ ...cursor, lastTime: 'noon' }), /^not a records cursor rxstore made: lastTime: /],
    ['a workspace that is not text', (cursor: RecordsCursor) => ({ ...cursor, workspace: 7 }), /^not a records cursor rxstore made: workspace: /],
    ['a title that is not text', (cursor: RecordsCursor) => ({ ...cursor, title: false }), /^not a records cursor rxstore made: title: /],
    ['a waiting record of an unknown type', (cursor: RecordsCursor) => ({ ...cursor, waiting: [{ record: { type: 'note', sessionId: 's', time: 't' } }] }), /^not a records cursor rxstore made: waiting\.0/],
    ['a waiting record without its time', (cursor: RecordsCursor) => ({ ...cursor, waiting: [{ record: { type: 'message', sessionId: 's' } }] }), /^not a records cursor rxstore made: waiting\.0/],
    ['a waiting call without its arguments', (cursor: RecordsCursor) => ({ ...cursor, waiting: [{ call: { call: { id: 'c', name: 'bash' }, base: { sessionId: 's', workspace: null, title: null, time: 't' } } }] }), /^not a records cursor rxstore made: waiting\.0/],
    ['a waiting call without its base', (cursor: RecordsCursor) => ({ ...cursor, waiting: [{ call: { call: { id: 'c', name: 'bash', arguments: '{}' } } }] }), /^not a records cursor rxstore made: waiting\.0/],
    ['more records waiting than a cursor keeps', (cursor: RecordsCursor) => ({ ...cursor, waiting: Array.from({ length: 257 }, () => ({ record: { type: 'message', sessionId: 's', time: 't' } })) }), /^not a records cursor rxstore made: waiting: /],
  ])('holding %s is refused', async (_, change, message) => {
    const [first] = await all(recordsSince(plain.dir, plain.id, { workspace: null }, undefined, { maxBatches: 1 }));
    expect(await refusal(change(first!.cursor))).toMatch(message);
  });

  it('holding what rxstore keeps is accepted: records and calls of each kind, up to 256 of them, given first', async () => {
    const pieces = await all(recordsSince(plain.dir, plain.id, { workspace: null }, undefined, { maxBatches: 1 }));
    const first = pieces[0]!.cursor;
    const record = (type: string, at: number) => ({ record: { type, sessionId: plain.id, time: new Date(at).toISOString(), extra: at } });
    const kept = [record('message', 1), record('command', 2), record('file', 3), ...Array.from({ length: 253 }, (_, at) => record('message', 10 + at))];
    const given = await all(recordsSince(plain.dir, plain.id, { workspace: null }, { ...first, waiting: kept }));
    const records = given.flatMap((piece) => piece.records);
    expect(records.slice(0, 256)).toEqual(kept.map((item) => item.record));
    expect(records.slice(256)).toEqual((await all(recordsSince(plain.dir, plain.id, { workspace: null }, first))).flatMap((piece) => piece.records));
    const call = { call: { call: { id: 'call_kept', name: 'bash', arguments: '{"command":"true"}' }, base: { sessionId: plain.id, workspace: null, title: null, time: new Date(5).toISOString(), messageId: 'm' } } };
    const withCall = await all(recordsSince(plain.dir, plain.id, { workspace: null }, { ...first, waiting: [call] }));
    // Its turn ends in a later batch: the call is given then, as it stands.
    expect(withCall.flatMap((piece) => piece.records)[0]).toMatchObject({ type: 'command', command: 'true', messageId: 'm' });
  });
});

/** What a whole replay of the session refuses, as `records()` throws it. */
async function wholeRefusal(dir: string): Promise<unknown> {
  const read = await readSession(dir, { caches: false });
  expect(read.refusal).toBeDefined();
  return read.refusal;
}

/** Everything given before the read stopped, and what it stopped with. */
async function readOn(dir: string, id: string, cursor: unknown): Promise<{ records: IndexRecord[]; error: unknown }> {
  const records: IndexRecord[] = [];
  try {
    for await (const piece of recordsSince(dir, id, { workspace: null }, cursor)) records.push(...piece.records);
  } catch (error) {
    return { records, error };
  }
  return { records, error: undefined };
}

/** Two different ids whose 32-bit hashes (FNV-1a, as the cursor keeps them) are equal. */
function collidingIds(): [string, string] {
  const byHash = new Map<number, string>();
  for (let n = 0; ; n += 1) {
    const id = `rx-collide-${n}`;
    let hash = 0x811c9dc5;
    for (let at = 0; at < id.length; at += 1) hash = Math.imul(hash ^ id.charCodeAt(at), 0x01000193) >>> 0;
    const earlier = byHash.get(hash);
    if (earlier !== undefined) return [earlier, id];
    byHash.set(hash, id);
  }
}

describe('a batch after a cursor is judged with what came before it', () => {
  it('a message id the log already holds is refused as the whole replay refuses it, after what precedes it', async () => {
    const dir = await copySession(plain.dir);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    const taken = (await readSession(dir)).projection.transcript.at(-1)!.message.id!;
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'new' })]);
    await appendBatch(dir, [complete({ role: 'user', id: taken, origin: 'user', content: 'again' })]);
    const expected = await wholeRefusal(dir);
    expect(expected).toBeInstanceOf(StrictPayloadError);
    expect((expected as Error).message).toMatch(/duplicate stable message id/);
    const read = await readOn(dir, plain.id, cursor);
    expect(read.records.map((record) => (record.type === 'message' ? record.text : record.type))).toEqual(['new']);
    expect(read.error).toEqual(expected);
  });

  it('one id of a batch the log already holds, beside new ones, is refused too', async () => {
    const dir = await copySession(plain.dir);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    const taken = (await readSession(dir)).projection.transcript.at(-1)!.message.id!;
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'new' }), complete({ role: 'user', id: taken, origin: 'user', content: 'again' })]);
    const expected = await wholeRefusal(dir);
    expect((expected as Error).message).toMatch(/duplicate stable message id/);
    expect((await readOn(dir, plain.id, cursor)).error).toEqual(expected);
  });

  it('a second result for a tool call an earlier batch answered is refused as the whole replay refuses it', async () => {
    const dir = await copySession(tools.dir);
    const cursor = (await all(recordsSince(dir, tools.id, { workspace: null }))).at(-1)!.cursor;
    const answered = (await readSession(dir)).projection.modelMessages.find((message) => message.role === 'tool')!.tool_call_id!;
    await appendBatch(dir, [complete({ role: 'tool', id: messageId(), tool_call_id: answered, name: 'bash', content: 'again' })]);
    const expected = await wholeRefusal(dir);
    expect((expected as Error).message).toMatch(/duplicate transcript record/);
    expect((await readOn(dir, tools.id, cursor)).error).toEqual(expected);
    // A cursor of the first version, which carries no ids: they are gathered from the log before it.
    const { seen: _, ...older } = cursor;
    expect((await readOn(dir, tools.id, { ...older, version: 1 })).error).toEqual(expected);
  });

  it('ids whose hashes collide are only a maybe: the whole replay finds nothing wrong, and the records are given', async () => {
    const [first, second] = collidingIds();
    const dir = await copySession(plain.dir);
    await appendBatch(dir, [complete({ role: 'user', id: first, origin: 'user', content: 'first' })]);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    await appendBatch(dir, [complete({ role: 'user', id: second, origin: 'user', content: 'second' })]);
    expect((await readSession(dir)).refusal).toBeUndefined();
    const read = await readOn(dir, plain.id, cursor);
    expect(read.error).toBeUndefined();
    expect(read.records.map((record) => (record.type === 'message' ? record.messageId : record.type))).toEqual([second]);
  });

  it('a maybe whose whole replay is refused only later gives its batch; the refusal comes with the batch it falls in', async () => {
    const [first, second] = collidingIds();
    const messageIdOf = (record: IndexRecord) => (record.type === 'message' ? record.messageId : record.type);
    const dir = await copySession(plain.dir);
    await appendBatch(dir, [complete({ role: 'user', id: first, origin: 'user', content: 'first' })]);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    await appendBatch(dir, [complete({ role: 'user', id: second, origin: 'user', content: 'second' })]);
    const damaged = await copySession(dir);
    // A message id used again, in a later batch.
    await appendBatch(dir, [complete({ role: 'user', id: second, origin: 'user', content: 'again' })]);
    const repeated = await readOn(dir, plain.id, cursor);
    expect(repeated.records.map(messageIdOf)).toEqual([second]);
    expect(repeated.error).toEqual(await wholeRefusal(dir));
    // Damaged bytes in a later batch: the whole replay's refusal names an offset past the batch.
    await appendBatch(damaged, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'later' })]);
    const frames = await framesOf(damaged);
    const flipped = frames.at(-2)!;
    await editLog(damaged, (log) => {
      const last = flipped.offset + flipped.bytes - 1;
      log[last] = log[last]! ^ 0xff;
      return log;
    });
    const expected = await wholeRefusal(damaged);
    expect(expected).toMatchObject({ code: 'RX_DAMAGED_STORE' });
    const cut = await readOn(damaged, plain.id, cursor);
    expect(cut.records.map(messageIdOf)).toEqual([second]);
    expect(cut.error).toMatchObject({ code: 'RX_DAMAGED_STORE' });
  });

  it('a cursor of the first version reads on as one of this version does, and hands out this version', async () => {
    const dir = await copySession(tools.dir);
    const pieces = await all(recordsSince(dir, tools.id, { workspace: null }, undefined, { maxBatches: 2 }));
    const cursor = pieces.at(-1)!.cursor;
    const { seen: _, ...older } = cursor;
    const fromNew = await all(recordsSince(dir, tools.id, { workspace: null }, cursor));
    const fromOld = await all(recordsSince(dir, tools.id, { workspace: null }, { ...older, version: 1 }));
    expect(fromOld).toEqual(fromNew);
    expect(fromOld.at(-1)!.cursor.version).toBe(2);
  });
});
