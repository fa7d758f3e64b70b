// A records cursor carries across batches what the next records need: the workspace and title known
// so far, the calls waiting for their results, and a bounded filter of the message ids used. It is plain
// JSON an indexer stores; anything else given as one is refused with CursorMismatchError naming why.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { CursorMismatchError } from '../../../src/errors/index.js';
import type { IndexRecord, RecordChange } from '../../../src/session/replay/index-records.js';
import { IdFilter, MESSAGE_ID_BITS } from '../../../src/session/cursors/id-filter.js';
import {
  recordsSince,
  recordsSinceNamed,
  type RecordsCursor,
  type RecordsSince,
} from '../../../src/session/cursors/records-since.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { appendBatch, copySession, editLog, framesOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { readInto, RecordIndex, wholeRecords } from '../../support/sessions/record-index.js';
import { StrictPayloadError } from '../../../src/errors/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';

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
  // Refused naming the log it was given for, as a log cursor's refusal does: an indexer logs the path.
  expect((error as CursorMismatchError).data.file).toBe(join(plain.dir, 'events.frames'));
  return (error as Error).message;
};

describe('a records cursor', () => {
  it('carries the title and workspace known so far; a record takes them as they stand when it is given', async () => {
    const dir = await copySession(plain.dir);
    const pieces = await all(
      recordsSince(dir, plain.id, { workspace: null }, undefined, { maxBatches: 1000, cursorAtEnd: true }),
    );
    const cursor = pieces.at(-1)!.cursor;
    expect(cursor.version).toBe(3);
    // The last piece, asked for, holds no records: the cursor after the batches that changed none.
    expect(pieces.at(-1)!.records).toEqual([]);
    expect(pieces.at(-2)!.cursor.log.offset).toBeLessThan(cursor.log.offset);
    expect(cursor.pending).toEqual([]);
    // plain-chat's host context names the workspace; it has no title.
    expect(cursor.session).toEqual({ workspace: plain.workspace, title: null, status: 'ok' });
    expect(pieces.filter((piece) => piece.session).at(-1)!.session).toEqual({
      workspace: plain.workspace,
      title: null,
      status: 'ok',
    });

    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'a later question' })]);
    // A state of its own, unsealed (as a cursor made before seals): a sealed one pieced so is refused.
    const carried: RecordsCursor = {
      ...cursor,
      session: { workspace: '/carried/workspace', title: 'Carried title', status: 'ok' },
      seal: undefined,
    };
    const [next, ...more] = await all(
      recordsSince(dir, plain.id, { workspace: null }, JSON.parse(JSON.stringify(carried))),
    );
    expect(more).toEqual([]);
    expect(next!.session).toBeUndefined();
    expect(next!.records).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'user',
        text: 'a later question',
        workspace: '/carried/workspace',
        title: 'Carried title',
      }),
    ]);
    expect(next!.cursor).toMatchObject({
      session: { workspace: '/carried/workspace', title: 'Carried title' },
      pending: [],
    });

    // A workspace the caller knows (a desktop session's header) is every record's, and the piece says it changed.
    const given = await all(recordsSince(dir, plain.id, { workspace: '/given/by/caller' }, carried));
    expect(
      given.flatMap((piece) => piece.records).map((record) => record.type !== 'removed' && record.workspace),
    ).toEqual(['/given/by/caller']);
    expect(given[0]!.session).toEqual({ workspace: '/given/by/caller', title: 'Carried title', status: 'ok' });

    // A cursor of this version made before statuses (none in its session, no gate): the read's last piece says the status.
    const { status: _, ...beforeStatuses } = carried.session;
    const { gate: __, ...withoutGate } = carried;
    const older = await all(
      recordsSince(dir, plain.id, { workspace: null }, { ...withoutGate, session: beforeStatuses }),
    );
    expect(older.at(-1)!.session).toEqual({ workspace: '/carried/workspace', title: 'Carried title', status: 'ok' });

    // The workspace the session names wins over the one carried, and is asked for once, when the first batch is new.
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), origin: 'user', content: 'and another' })]);
    let asked = 0;
    const named = await all(
      recordsSinceNamed(
        dir,
        plain.id,
        async () => {
          asked += 1;
          return '/named/by/header';
        },
        carried,
      ),
    );
    expect(asked).toBe(1);
    expect(named).toHaveLength(2);
    expect(
      named.flatMap((piece) => piece.records).map((record) => record.type !== 'removed' && record.workspace),
    ).toEqual(['/named/by/header', '/named/by/header']);
    // Nothing new after the last cursor: nothing given, nothing asked.
    expect(
      await all(
        recordsSinceNamed(
          dir,
          plain.id,
          async () => {
            asked += 1;
            return null;
          },
          named.at(-1)!.cursor,
        ),
      ),
    ).toEqual([]);
    expect(asked).toBe(1);
  });

  it('a call waits in the cursor for its result and is given once, with its outcome; read on from there, the rest is the same', async () => {
    const pieces = await all(recordsSince(tools.dir, tools.id, { workspace: null }, undefined, { maxBatches: 1000 }));
    const at = pieces.findIndex((piece) => piece.cursor.pending.some((item) => item.call.name === 'bash' && item.held));
    expect(at).toBeGreaterThanOrEqual(0);
    const waiting = pieces[at]!.cursor;
    const rest = await all(recordsSince(tools.dir, tools.id, { workspace: null }, JSON.parse(JSON.stringify(waiting))));
    const fromWhole = pieces.slice(at + 1).flatMap((piece) => piece.records);
    expect(rest.flatMap((piece) => piece.records)).toEqual(fromWhole);
    const commands = pieces.flatMap((piece) => piece.records).filter((record) => record.type === 'command');
    expect(
      commands.map((record) => record.type === 'command' && [record.command, record.state, record.exitCode]),
    ).toEqual([
      ['echo listing && ls', 'completed', 0],
      ['ls missing-dir', 'failed', 2],
    ]);
    // Each key once: nothing given twice in one read.
    const keys = pieces.flatMap((piece) => piece.records).map((record) => record.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('calls of a turn still open wait until more than 128 (or 28 KiB of them) wait, the oldest then given without a result; a turn that ends gives them all', async () => {
    const callIds = Array.from({ length: 140 }, (_, at) => `call_rxstore_unanswered_${at}`);
    const calls = callIds.map((id) =>
      complete({
        role: 'assistant',
        id: messageId(),
        content: '',
        tool_calls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `echo ${id}` }) }],
      }),
    );
    const turnId = 'turn_00000000000000000000000000000300';
    const { cursor } = (await all(recordsSince(plain.dir, plain.id, { workspace: null }))).at(-1)!;
    const commandsOf = (piece: RecordsSince) =>
      piece.records.filter((record): record is Extract<IndexRecord, { type: 'command' }> => record.type === 'command');

    const open = await copySession(plain.dir);
    await appendBatches(
      open,
      [{ operationId: 'rxstore-test:open-turn', turnId, events: [{ kind: 'turn/start', payload: {} }, ...calls] }],
      { validate: false },
    );
    const [piece, end] = await all(recordsSince(open, plain.id, { workspace: null }, cursor));
    // At most 128 wait, in at most 28 KiB: the oldest past that are given.
    const waiting = piece!.cursor.pending.length;
    expect(waiting).toBeLessThanOrEqual(128);
    expect(JSON.stringify(piece!.cursor.pending).length).toBeLessThanOrEqual(28 * 1024);
    expect(piece!.cursor.pending.map((item) => item.call.id)).toEqual(callIds.slice(140 - waiting));
    expect(commandsOf(piece!).map((record) => record.command)).toEqual(
      callIds.slice(0, 140 - waiting).map((id) => `echo ${id}`),
    );
    expect(commandsOf(piece!).every((record) => record.state === undefined && record.exitCode === undefined)).toBe(
      true,
    );
    // The read's end gives the calls still waiting as they stand (records() gives them so), and they wait on for their results.
    expect(commandsOf(end!).map((record) => record.command)).toEqual(
      callIds.slice(140 - waiting).map((id) => `echo ${id}`),
    );
    expect(end!.cursor.pending.every((item) => !item.held)).toBe(true);

    const ended = await copySession(plain.dir);
    await appendBatches(
      ended,
      [
        {
          operationId: 'rxstore-test:ended-turn',
          turnId,
          events: [
            { kind: 'turn/start', payload: {} },
            ...calls.slice(0, 3),
            { kind: 'turn/end', payload: { status: 'completed' } },
          ],
        },
      ],
      { validate: false },
    );
    const [whole, ...after] = await all(recordsSince(ended, plain.id, { workspace: null }, cursor));
    expect(after).toEqual([]);
    expect(whole!.cursor.pending).toEqual([]);
    expect(commandsOf(whole!).map((record) => record.command)).toEqual(callIds.slice(0, 3).map((id) => `echo ${id}`));
  });

  it('a call past the bounds, or one a larger call pushed past them, whose result comes in the same batch is given with it, as records() gives it', async () => {
    const call = (id: string, command: string) =>
      complete({
        role: 'assistant',
        id: messageId(),
        content: '',
        tool_calls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
      });
    const result = (id: string, content: string) =>
      complete({ role: 'tool', id: messageId(), tool_call_id: id, name: 'bash', content });
    // `small` waits, then `large` (past 28 KiB on its own) pushes it out and goes out itself; both results follow.
    const events = [
      { kind: 'turn/start', payload: {} },
      call('call_rxstore_small', 'echo small'),
      call('call_rxstore_large', `echo ${'x'.repeat(30 * 1024)}`),
      call('call_rxstore_after', 'echo after'),
      result('call_rxstore_small', 'small done'),
      result('call_rxstore_large', 'large done'),
      result('call_rxstore_after', 'after done'),
    ] as EventToWrite[];
    const dir = await copySession(plain.dir);
    const index = new RecordIndex();
    const cursor = await readInto(dir, index, undefined);
    const turnId = 'turn_00000000000000000000000000000301';
    await appendBatches(dir, [{ operationId: 'rxstore-test:past-the-bounds', turnId, events }], { validate: false });
    await readInto(dir, index, cursor);
    const streamed = index.current();
    expect(streamed).toEqual((await wholeRecords(dir)).byKey);
    const results = [...streamed.values()]
      .filter((record): record is Extract<IndexRecord, { type: 'command' }> => record.type === 'command')
      .map((record) => record.output);
    expect(results).toEqual(['small done', 'large done', 'after done']);
  });

  it('stays small whatever the log: the ids are filters of at most 8 and 16 KiB, the operations of 9', async () => {
    const dir = await copySession(plain.dir);
    const many = Array.from({ length: 20 }, () =>
      Array.from({ length: 500 }, (_, at) =>
        complete({ role: 'user', id: messageId(), origin: 'user', content: `question ${at}` }),
      ),
    );
    await appendBatches(
      dir,
      many.map((events, at) => ({ operationId: `rxstore-test:many-${at}`, events })),
      { validate: false },
    );
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    expect(cursor.ids.count).toBeGreaterThan(10_000);
    // 10.9 KB of message ids; the log cursor's two filters of operation ids at their least, 0.2 KB each.
    expect(JSON.stringify(cursor).length).toBeLessThan(12_500);
  });

  it.each([
    [
      'another version',
      (cursor: RecordsCursor) => ({ ...cursor, version: 4 }),
      /^not a records cursor rxstore made: version: /,
    ],
    [
      'a filter that is not base64',
      (cursor: RecordsCursor) => ({ ...cursor, ids: { ...cursor.ids, bits: 'not base64!' } }),
      /^not a records cursor rxstore made: ids\.bits: /,
    ],
    [
      'a filter of a size rxstore never makes',
      (cursor: RecordsCursor) => ({ ...cursor, ids: { ...cursor.ids, bits: Buffer.alloc(100).toString('base64') } }),
      /^not a records cursor rxstore made: ids\.bits: not a filter size/,
    ],
    [
      // Larger than its kind grows to: it would be carried into every later cursor, past the cursor's bound.
      'a filter of message ids the size of one of call ids',
      (cursor: RecordsCursor) => ({ ...cursor, ids: { ...cursor.ids, bits: Buffer.alloc(16384).toString('base64') } }),
      /^not a records cursor rxstore made: ids\.bits: not a filter size \(a power of two bits from 1024 to 65536\)/,
    ],
    [
      'a filter of numbered operation ids larger than they grow to',
      (cursor: RecordsCursor) => ({
        ...cursor,
        log: {
          ...cursor.log,
          operations: {
            ...cursor.log.operations!,
            numbered: { greatest: null, count: 1, bits: Buffer.alloc(2048).toString('base64') },
          },
        },
      }),
      /^not a records cursor rxstore made: log\.operations\.numbered\.bits: not a filter size \(a power of two bits from 1024 to 8192\)/,
    ],
    ['no ids', (cursor: RecordsCursor) => ({ ...cursor, ids: undefined }), /^not a records cursor rxstore made: ids: /],
    [
      'no call ids',
      (cursor: RecordsCursor) => ({ ...cursor, calls: undefined }),
      /^not a records cursor rxstore made: calls: /,
    ],
    [
      'a log cursor of another shape',
      (cursor: RecordsCursor) => ({ ...cursor, log: { ...cursor.log, offset: -1 } }),
      /^not a records cursor rxstore made: log\.offset: /,
    ],
    [
      'a workspace that is not text',
      (cursor: RecordsCursor) => ({ ...cursor, session: { ...cursor.session, workspace: 7 } }),
      /^not a records cursor rxstore made: session\.workspace: /,
    ],
    [
      'a title that is not text',
      (cursor: RecordsCursor) => ({ ...cursor, session: { ...cursor.session, title: false } }),
      /^not a records cursor rxstore made: session\.title: /,
    ],
    [
      'a waiting call without its arguments',
      (cursor: RecordsCursor) => ({
        ...cursor,
        pending: [
          {
            call: { id: 'c', name: 'bash' },
            base: { key: 'k', sessionId: 's', workspace: null, title: null, time: 't' },
            held: true,
          },
        ],
      }),
      /^not a records cursor rxstore made: pending\.0/,
    ],
    [
      'a waiting call without its key',
      (cursor: RecordsCursor) => ({
        ...cursor,
        pending: [
          {
            call: { id: 'c', name: 'bash', arguments: '{}' },
            base: { sessionId: 's', workspace: null, title: null, time: 't' },
            held: true,
          },
        ],
      }),
      /^not a records cursor rxstore made: pending\.0/,
    ],
    [
      'more calls waiting than a cursor keeps',
      (cursor: RecordsCursor) => ({
        ...cursor,
        pending: Array.from({ length: 129 }, () => ({
          call: { id: 'c', name: 'bash', arguments: '{}' },
          base: { key: 'k', sessionId: 's', workspace: null, title: null, time: 't' },
          held: true,
        })),
      }),
      /^not a records cursor rxstore made: pending: /,
    ],
    [
      'an earlier version',
      (cursor: RecordsCursor) => ({ ...cursor, version: 2 }),
      /^a version 2 records cursor, from an earlier rxstore: .*; read the session again from the start/,
    ],
    [
      'the first version',
      (cursor: RecordsCursor) => ({
        version: 1,
        log: cursor.log,
        lastTime: null,
        workspace: null,
        title: null,
        waiting: [],
      }),
      /^a version 1 records cursor, from an earlier rxstore/,
    ],
    [
      'a log cursor (readSince gives those) instead',
      (cursor: RecordsCursor) => cursor.log,
      /^a log cursor \(readSince and batchesSince give those\), not a records cursor: give recordsSince the cursor recordsSince returned/,
    ],
  ])('holding %s is refused', async (_, change, message) => {
    const [first] = await all(recordsSince(plain.dir, plain.id, { workspace: null }, undefined, { maxBatches: 1 }));
    expect(await refusal(change(JSON.parse(JSON.stringify(first!.cursor)) as RecordsCursor))).toMatch(message);
  });

  it('a call kept in a cursor is given with its result when the result comes', async () => {
    const dir = await copySession(plain.dir);
    const pieces = await all(recordsSince(dir, plain.id, { workspace: null }, undefined, { cursorAtEnd: true }));
    const first = pieces.at(-1)!.cursor;
    const call = {
      call: { id: 'call_kept', name: 'bash', arguments: '{"command":"true"}' },
      base: {
        key: `${plain.id}/m/m/call/call_kept`,
        sessionId: plain.id,
        workspace: null,
        title: null,
        time: new Date(5).toISOString(),
        messageId: 'm',
      },
      held: true,
    };
    await appendBatch(dir, [
      complete({
        role: 'tool',
        id: messageId(),
        tool_call_id: 'call_kept',
        name: 'bash',
        content: 'ok',
        tool_execution: { state: 'completed', exitCode: 0 },
      }),
    ]);
    const withCall = await all(
      recordsSince(dir, plain.id, { workspace: null }, { ...first, pending: [call], seal: undefined }),
    );
    expect(withCall.flatMap((piece) => piece.records)).toEqual([
      expect.objectContaining({
        type: 'command',
        command: 'true',
        messageId: 'm',
        output: 'ok',
        exitCode: 0,
        key: call.base.key,
      }),
    ]);
  });
});

/** What a whole replay of the session refuses, as `records()` throws it. */
async function wholeRefusal(dir: string): Promise<unknown> {
  const read = await readSession(dir, { caches: false });
  expect(read.refusal).toBeDefined();
  return read.refusal;
}

/** Everything given before the read stopped, and what it stopped with. */
async function readOn(dir: string, id: string, cursor: unknown): Promise<{ records: RecordChange[]; error: unknown }> {
  const records: RecordChange[] = [];
  try {
    for await (const piece of recordsSince(dir, id, { workspace: null }, cursor)) records.push(...piece.records);
  } catch (error) {
    return { records, error };
  }
  return { records, error: undefined };
}

/** An id the cursor's filter may hold although no message has it, before the greatest id: only the whole log can say it is new. */
function maybeHeld(cursor: RecordsCursor): string {
  const filter = IdFilter.from(cursor.ids, true, MESSAGE_ID_BITS);
  for (let n = 0; ; n += 1) {
    const id = `00-maybe-${n}`;
    if (filter.mayHold(id)) return id;
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

  it('a submission receipt that conflicts with one before the cursor is refused as the whole replay refuses it', async () => {
    const dir = await copySession(plain.dir);
    const receipt = (fingerprint: string): EventToWrite => ({
      kind: 'submission/accepted',
      optional: true,
      payload: { sessionId: plain.id, submissionId: 's1', fingerprint, turnId: 't1', messageId: 'm1' },
    });
    await appendBatch(dir, [receipt('f')], { turnId: 't1' });
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    await appendBatch(dir, [receipt('g')], { turnId: 't1' });
    const expected = await wholeRefusal(dir);
    expect((expected as Error).message).toMatch(/conflicting submission receipt/);
    expect((await readOn(dir, plain.id, cursor)).error).toEqual(expected);
  });

  it('one id of a batch the log already holds, beside new ones, is refused too', async () => {
    const dir = await copySession(plain.dir);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    const taken = (await readSession(dir)).projection.transcript.at(-1)!.message.id!;
    await appendBatch(dir, [
      complete({ role: 'user', id: messageId(), origin: 'user', content: 'new' }),
      complete({ role: 'user', id: taken, origin: 'user', content: 'again' }),
    ]);
    const expected = await wholeRefusal(dir);
    expect((expected as Error).message).toMatch(/duplicate stable message id/);
    expect((await readOn(dir, plain.id, cursor)).error).toEqual(expected);
  });

  it('a second result for a tool call an earlier batch answered is refused as the whole replay refuses it', async () => {
    const dir = await copySession(tools.dir);
    const cursor = (await all(recordsSince(dir, tools.id, { workspace: null }))).at(-1)!.cursor;
    const answered = (await readSession(dir)).projection.modelMessages.find((message) => message.role === 'tool')!
      .tool_call_id!;
    await appendBatch(dir, [
      complete({ role: 'tool', id: messageId(), tool_call_id: answered, name: 'bash', content: 'again' }),
    ]);
    const expected = await wholeRefusal(dir);
    expect((expected as Error).message).toMatch(/duplicate transcript record/);
    expect((await readOn(dir, tools.id, cursor)).error).toEqual(expected);
  });

  it('an id the filter may hold is only a maybe: the whole replay finds nothing wrong, and the records are given', async () => {
    const dir = await copySession(plain.dir);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    const second = maybeHeld(cursor);
    await appendBatch(dir, [complete({ role: 'user', id: second, origin: 'user', content: 'second' })]);
    expect((await readSession(dir)).refusal).toBeUndefined();
    const read = await readOn(dir, plain.id, cursor);
    expect(read.error).toBeUndefined();
    expect(read.records.map((record) => (record.type === 'message' ? record.messageId : record.type))).toEqual([
      second,
    ]);
  });

  it('a maybe whose whole replay is refused only later gives its batch; the refusal comes with the batch it falls in', async () => {
    const messageIdOf = (record: RecordChange) => (record.type === 'message' ? record.messageId : record.type);
    const dir = await copySession(plain.dir);
    const cursor = (await all(recordsSince(dir, plain.id, { workspace: null }))).at(-1)!.cursor;
    const second = maybeHeld(cursor);
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
});
