// What the writer refuses before it writes, judged in process: each refusal names the batch and the
// event, and carries the sequence Reasonix 1.38.11 names in its own refusal of the same session (its
// messages are quoted per case; writer-refuses-what-reasonix-refuses runs the real Reasonix on them).
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { RefusedBatchError } from '../../../src/errors/index.js';
import { appendBatches, createSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

/** Two events: the first new event of a later batch is sequence 3. */
const start = (): BatchToWrite => ({
  operationId: 'session-create',
  events: [
    complete({ role: 'system', id: messageId(), content: 'You are terse.' }),
    { kind: 'session/config', payload: { modelRef: 'mock/mock-model' } },
  ],
});

async function refusal(batches: BatchToWrite[]): Promise<RefusedBatchError> {
  const storeDir = await tempDir();
  const error = await createSession({ storeDir, batches }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(RefusedBatchError);
  // Refused before anything is written: not even a staging directory.
  expect(await readdir(storeDir)).toEqual([]);
  return error as RefusedBatchError;
}

describe('createSession refuses what Reasonix 1.38.11 refuses, naming where', () => {
  it('a message without an id (Reasonix: "invalid message/complete payload at 4")', async () => {
    const error = await refusal([
      start(),
      {
        operationId: 't1',
        events: [
          complete({ role: 'user', id: messageId(), content: 'a' }),
          { kind: 'message/complete', payload: { message: { role: 'user', content: 'no id' } } },
        ],
      },
    ]);
    expect(error.code).toBe('RX_WRITE_REFUSED');
    expect(error.message).toBe(
      'refused to write batch 2 (operation "t1"), event 2 (message/complete): invalid message/complete payload: the message is missing or has no id',
    );
    expect(error.data).toEqual({ sequence: 4, found: 'message/complete' });
  });

  it('a key Reasonix does not know (Reasonix: "invalid message/complete payload at 3: json: unknown field \\"timestamp\\"")', async () => {
    const error = await refusal([
      start(),
      { operationId: 't1', events: [complete({ role: 'user', id: messageId(), content: 'x', timestamp: 5 })] },
    ]);
    expect(error.message).toBe(
      'refused to write batch 2 (operation "t1"), event 1 (message/complete): invalid message/complete payload: unknown field "timestamp" in message',
    );
    expect(error.data).toEqual({ sequence: 3, found: 'message/complete' });
  });

  it('a message id used twice across batches (Reasonix: "invalid message/complete payload at 4: duplicate stable message id")', async () => {
    const id = messageId();
    const error = await refusal([
      start(),
      { operationId: 't1', events: [complete({ role: 'user', id, content: 'x' })] },
      { operationId: 't2', events: [complete({ role: 'assistant', id, content: 'y' })] },
    ]);
    expect(error.message).toBe(
      `refused to write batch 3 (operation "t2"), event 1 (message/complete): invalid message/complete payload: duplicate stable message id "${id}"`,
    );
    expect(error.data).toEqual({ sequence: 4, found: 'message/complete' });
  });

  it('a turn/end status Reasonix does not know (Reasonix: "invalid turn/end payload at 4")', async () => {
    const error = await refusal([
      start(),
      {
        operationId: 't1',
        turnId: 'turn_1',
        events: [
          { kind: 'turn/start', payload: { status: 'in_progress' } },
          { kind: 'turn/end', payload: { status: 'cancelled' } },
        ],
      },
    ]);
    expect(error.message).toMatch(
      /^refused to write batch 2 \(operation "t1"\), event 2 \(turn\/end\): invalid turn\/end payload: /,
    );
    expect(error.data).toEqual({ sequence: 4, found: 'turn/end' });
  });

  it('a payload that is not JSON, given as bytes (Reasonix: "invalid message/complete payload at 3")', async () => {
    const error = await refusal([
      start(),
      { operationId: 't1', events: [{ kind: 'message/complete', payloadJson: Buffer.from('{not json') }] },
    ]);
    expect(error.message).toMatch(
      /^refused to write batch 2 \(operation "t1"\), event 1 \(message\/complete\): invalid message\/complete payload: /,
    );
    expect(error.data).toEqual({ sequence: 3, found: 'message/complete' });
  });

  it('a kind Reasonix does not know that is not optional (Reasonix: "unsupported session storage version")', async () => {
    const error = await refusal([
      start(),
      { operationId: 't1', events: [{ kind: 'session/title', payload: { title: 'ok' } }] },
      {
        operationId: 't2',
        events: [
          complete({ role: 'user', id: messageId(), content: 'x' }),
          { kind: 'message/compelte', payload: { message: { role: 'user', id: messageId(), content: 'x' } } },
        ],
      },
    ]);
    expect(error.message).toBe(
      'refused to write batch 3 (operation "t2"), event 2 (message/compelte): Reasonix 1.38.11 does not know this kind, and the event is not optional (unsupported session storage version)',
    );
    expect(error.data).toEqual({ sequence: 5, found: 'message/compelte' });
  });

  it('an operation id repeated with other events (Reasonix: "conflicting operation \\"t1\\""), naming the batch, not an event', async () => {
    const error = await refusal([
      start(),
      { operationId: 't1', events: [{ kind: 'session/title', payload: { title: 'one' } }] },
      { operationId: 't1', events: [{ kind: 'session/title', payload: { title: 'two' } }] },
    ]);
    expect(error.message).toBe(
      'refused to write batch 3 (operation "t1"): the operation id is already in the log with other events (Reasonix: conflicting operation)',
    );
    expect(error.data).toEqual({ sequence: 4, found: 't1' });
  });
});

describe('createSession writes what Reasonix accepts', () => {
  it('an unknown kind marked optional, an event without a payload, and a batch time given as text', async () => {
    const created = await createSession({
      storeDir: await tempDir(),
      batches: [
        start(),
        {
          operationId: 't1',
          createdAt: '2026-01-02T03:04:05Z',
          events: [
            { kind: 'rxstore/future-kind', optional: true, payload: { any: 'thing' } },
            { kind: 'diagnostic' },
            complete({ role: 'user', id: messageId(), content: 'hi' }),
          ],
        },
      ],
    });
    const read = await readSession(created.dir);
    expect(read.status).toBe('ok');
    expect(read.events.total).toBe(5);
    expect(read.events.byKind).toMatchObject({ 'rxstore/future-kind': 1, diagnostic: 1, 'message/complete': 2 });
    expect(read.lastCommitAt).toBe('2026-01-02T03:04:05Z');
    expect(read.projection.transcript.map((entry) => entry.message.content)).toEqual(['You are terse.', 'hi']);
  });

  it('with validation off, writes a session Reasonix refuses, and the read says so', async () => {
    const created = await createSession({
      storeDir: await tempDir(),
      batches: [
        start(),
        {
          operationId: 't1',
          events: [{ kind: 'message/complete', payload: { message: { role: 'user', content: 'no id' } } }],
        },
      ],
      validate: false,
    });
    const read = await readSession(created.dir);
    expect(read.status).toBe('damaged');
    expect(read.problems[0]!.message).toMatch(/invalid message\/complete payload/);
  });
});

describe('appendBatches judges new batches after the log it appends to', () => {
  // plain-chat holds 9 events: the first appended event is sequence 10.
  const source = fixture('plain-chat');

  it('a message id the log already holds is refused at the next sequence, and the log is left as it was', async () => {
    const dir = await copySession(source.dir);
    const before = await readFile(logOf(dir));
    const taken = (await readSession(dir)).projection.transcript[1]!.message.id!;
    const error = await appendBatches(dir, [
      { operationId: 'fine', events: [{ kind: 'session/title', payload: { title: 'Renamed' } }] },
      {
        operationId: 'again',
        events: [
          complete({ role: 'user', id: messageId(), content: 'new' }),
          complete({ role: 'user', id: taken, content: 'again' }),
        ],
      },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusedBatchError);
    expect((error as Error).message).toBe(
      `refused to write batch 2 (operation "again"), event 2 (message/complete): invalid message/complete payload: duplicate stable message id "${taken}"`,
    );
    expect((error as RefusedBatchError).data).toEqual({ sequence: 12, found: 'message/complete' });
    expect(await readFile(logOf(dir))).toEqual(before);
  });

  it('an operation id of the log with other events is refused (Reasonix: "conflicting operation")', async () => {
    const dir = await copySession(source.dir);
    const before = await readFile(logOf(dir));
    const error = await appendBatches(dir, [
      { operationId: 'session-create', events: [{ kind: 'session/title', payload: { title: 'x' } }] },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusedBatchError);
    expect((error as RefusedBatchError).data).toEqual({ sequence: 10, found: 'session-create' });
    expect(await readFile(logOf(dir))).toEqual(before);
  });

  it('with validation off, an invalid batch is appended, and the read says the session is damaged there', async () => {
    const dir = await copySession(source.dir);
    const taken = (await readSession(dir)).projection.transcript[1]!.message.id!;
    await appendBatches(
      dir,
      [{ operationId: 'again', events: [complete({ role: 'user', id: taken, content: 'again' })] }],
      { validate: false },
    );
    const read = await readSession(dir);
    expect(read.status).toBe('damaged');
    expect(read.lastSequence).toBe(10);
    expect(read.problems[0]!.message).toMatch(/duplicate stable message id/);
  });
});
