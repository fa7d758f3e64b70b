import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession, type ReadSessionOptions } from '../../../src/session/verdict/read-session.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import type { BatchToWrite, EventToWrite } from '../../../src/codec/encode-batch.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { replayedBatches } from '../../../src/session/verdict/replayed-batches.js';
import { readLogBatches } from '../../../src/codec/read-log.js';
import { modelView } from '../../../src/session/replay/views.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';
import { complete } from '../../support/sessions/messages.js';
import type { Turns } from '../../../src/session/replay/turn-table.js';

type Stored = Record<string, unknown> & { role: string };
const event = (kind: string, payload: unknown): EventToWrite => ({ kind, payload });
const system = { role: 'system', id: 'm-system', content: 'You are a careful coding agent.' };

/** A session written as given (Reasonix's own checks off, so it can hold what Reasonix refuses), then read. */
async function replay(batches: BatchToWrite[], options: ReadSessionOptions = {}) {
  const { dir } = await createSession({
    storeDir: join(await tempDir('rxstore-replay-'), 'sessions-v4'),
    batches: batches.map((batch) => ({ createdAt: '2026-01-02T03:04:05.000Z', ...batch })),
    validate: false,
  });
  return readSession(dir, options);
}

const ids = (messages: readonly { id?: string | undefined }[]) => messages.map((message) => message.id);
/** The turns started and not seen to end. */
const openTurns = (projection: { turns: Turns }) =>
  [...projection.turns.values()].filter((turn) => turn.status === 'in_progress');

/** The byte offset of the event at `seq` in the session's log, as the codec reads it. */
async function offsetOfEvent(dir: string, seq: number): Promise<number> {
  for await (const item of readLogBatches(join(dir, 'events.frames'))) {
    const found = item.type === 'batch' ? item.batch.events.find((stored) => stored.seq === seq) : undefined;
    if (found) return found.offset;
  }
  throw new Error(`no event ${seq} in ${dir}`);
}

describe('a replay of the fixtures Reasonix wrote', () => {
  it('keeps the title, its sequence, model and workspace the events set', async () => {
    const titled = (await readSession(fixture('titled').dir)).projection;
    expect(titled.title).toBe('Refactor plan (fork)');
    expect(titled.titleSequence).toBe(11);
    expect(titled.modelRef).toBe('mock/mock-model');
    expect(titled.modelIdentity).toBe('');
    expect(titled.workspace).toBe('/tmp/rxstore-fixture-ws/titled');
    expect(titled.strictness).toEqual([]);
    expect(titled.refusedAt).toBeUndefined();
    expect(openTurns(titled)).toEqual([]);
    expect(titled.openFrom()).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps every message in the transcript and sends the model the compacted list after a checkpoint', async () => {
    const compacted = (await readSession(fixture('compacted').dir)).projection;
    expect(compacted.compactions).toEqual([41]);
    expect(compacted.transcript.map((entry) => entry.seq)).toEqual([
      1, 4, 5, 7, 11, 12, 14, 18, 19, 21, 25, 26, 28, 32, 33, 35, 39, 40, 43,
    ]);
    expect(compacted.modelMessages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'user',
      'assistant',
    ]);
    expect([...compacted.turns.values()].map((turn) => [turn.status, turn.startSeq])).toEqual([
      ['completed', 3],
      ['completed', 10],
      ['completed', 17],
      ['completed', 24],
      ['completed', 31],
      ['completed', 38],
    ]);
  });

  it('tells the turns of the interrupted fixture as they ended, and leaves local-only results out of the model list', async () => {
    const interrupted = (await readSession(fixture('interrupted').dir)).projection;
    expect([...interrupted.turns.values()]).toEqual([
      { turnId: 'turn_5d4e1b6663cbb79c490d3ad65bb2b7b7', status: 'completed', startSeq: 3 },
      { turnId: 'turn_a3ca309eb4fd885995340b236295c291', status: 'failed', startSeq: 10 },
      { turnId: 'turn_8bc4ae5449f7532ce2b40b0bc1e56fef', status: 'interrupted', startSeq: 23 },
    ]);
    expect(interrupted.turns.size).toBe(3);
    expect(interrupted.turns.get('turn_a3ca309eb4fd885995340b236295c291')?.status).toBe('failed');
    expect(interrupted.turns.get('turn_unknown')).toBeUndefined();
    expect(interrupted.transcript.map((entry) => entry.message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'user',
      'user',
      'tool',
      'user',
      'user',
      'tool',
    ]);
    expect(
      interrupted.transcript.filter((entry) => entry.message.local_only).map((entry) => entry.message.role),
    ).toEqual(['tool', 'tool']);
    expect(interrupted.modelMessages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'user',
      'user',
      'user',
      'user',
    ]);
  });

  it('times each message by its batch', async () => {
    const read = await readSession(fixture('plain-chat').dir);
    const times = read.projection.transcript.map((entry) => entry.batchTime);
    expect(times[0]).toBe(Date.parse(read.firstCommitAt!));
    for (const [at, time] of times.entries()) expect(time).toBeGreaterThanOrEqual(times[at - 1] ?? time);
    expect(times.at(-1)).toBeGreaterThan(times[0]!);
    expect(times.at(-1)).toBeLessThanOrEqual(Date.parse(read.lastCommitAt!));
  });
});

describe('a replay of events', () => {
  it('upserts in place, appends new ids, takes local-only ones out of the model list, and retracts by id', async () => {
    const read = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete({ role: 'user', id: 'm-a', content: 'first' }),
          complete({ role: 'assistant', id: 'm-b', content: 'second' }),
          complete({ role: 'assistant', id: 'm-c', content: 'third' }),
          event('message/upsert', { message: { role: 'assistant', id: 'm-b', content: 'second, rewritten' } }),
          event('message/upsert', { message: { role: 'assistant', id: 'm-d', content: 'fourth' } }),
          event('message/upsert', {
            message: { role: 'assistant', id: 'm-c', content: 'third, local', local_only: true },
          }),
          event('message/upsert', {
            message: { role: 'assistant', id: 'm-e', content: 'local from the start', local_only: true },
          }),
          event('message/retract', { messageIds: ['m-a'] }),
        ],
      },
    ]);
    const projection = read.projection;
    expect(read.status).toBe('ok');
    expect(ids(projection.transcript.map((entry) => entry.message))).toEqual(['m-system', 'm-b', 'm-c', 'm-d', 'm-e']);
    expect(projection.transcript.map((entry) => entry.seq)).toEqual([1, 5, 7, 6, 8]);
    expect(ids(projection.modelMessages)).toEqual(['m-system', 'm-b', 'm-d']);
    expect(projection.modelMessages[1]!.content).toBe('second, rewritten');
    expect(projection.transcript.every((entry) => entry.batchTime === Date.parse('2026-01-02T03:04:05.000Z'))).toBe(
      true,
    );
  });

  it('refuses a transcript that answers one tool call twice, as it stands after the whole log, and lets one follow a retracted or rewritten result', async () => {
    const call = {
      role: 'assistant',
      id: 'm-call',
      content: '',
      tool_calls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }],
    };
    const result = (id: string, extra: Record<string, unknown> = {}) => ({
      role: 'tool',
      id,
      tool_call_id: 'call_1',
      name: 'bash',
      content: 'out',
      ...extra,
    });
    const retracted = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1')),
          event('message/retract', { messageIds: ['m-r1'] }),
          complete(result('m-r2')),
        ],
      },
    ]);
    expect(retracted.status).toBe('ok');
    expect(ids(retracted.projection.modelMessages)).toEqual(['m-system', 'm-call', 'm-r2']);

    const localOnly = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1')),
          event('message/upsert', { message: result('m-r1', { local_only: true }) }),
          complete(result('m-r2')),
        ],
      },
    ]);
    expect(localOnly.status).toBe('ok');
    expect(ids(localOnly.projection.modelMessages)).toEqual(['m-system', 'm-call', 'm-r2']);

    const rewritten = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1')),
          event('message/upsert', { message: { role: 'tool', id: 'm-r1', tool_call_id: 'call_other', content: 'x' } }),
          complete(result('m-r2')),
        ],
      },
    ]);
    expect(rewritten.status).toBe('ok');

    const replaced = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1')),
          event('history/replace', { messages: [system, call] }),
          complete(result('m-r2')),
        ],
      },
    ]);
    expect(replaced.status).toBe('ok');
    expect(ids(replaced.projection.modelMessages)).toEqual(['m-system', 'm-call', 'm-r2']);

    const localResults = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1', { local_only: true })),
          complete(result('m-r2', { local_only: true })),
          complete(result('m-r3')),
        ],
      },
    ]);
    expect(localResults.status).toBe('ok');
    expect(ids(localResults.projection.modelMessages)).toEqual(['m-system', 'm-call', 'm-r3']);

    const twice = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          complete(result('m-r1')),
          event('message/upsert', { message: { role: 'user', id: 'm-u', content: 'more' } }),
          complete(result('m-r2')),
          complete({ role: 'user', id: 'm-after', content: 'x' }),
        ],
      },
    ]);
    expect(twice.status).toBe('damaged');
    // The refusal names the event that wrote the second result, where the log holds it.
    expect(twice.projection.strictness).toEqual([
      {
        seq: 5,
        offset: await offsetOfEvent(twice.dir, 5),
        kind: 'message/complete',
        message: `session: initialize transcript for ${JSON.stringify(twice.id)}: duplicate transcript record "tool:call_1"`,
        damaged: false,
        // Found in the transcript as a whole: no recovery checkpoint takes Reasonix past it.
        wholeTranscript: true,
      },
    ]);
    expect(twice.projection.refusedAt).toBe(5);
    // Reasonix refuses it when it loads the whole transcript: the views hold all of it.
    expect(ids(twice.projection.transcript.map((entry) => entry.message))).toEqual([
      'm-system',
      'm-call',
      'm-r1',
      'm-u',
      'm-r2',
      'm-after',
    ]);

    // Only what the whole log leaves counts (judged with Reasonix in repeated-result-matches-reasonix).
    const retractedLater = await replay([
      { operationId: 'o1', events: [complete(system), complete(call), complete(result('m-r1'))] },
      { operationId: 'o2', events: [complete(result('m-r2'))] },
      { operationId: 'o3', events: [event('message/retract', { messageIds: ['m-r2'] })] },
    ]);
    expect(retractedLater.status).toBe('ok');
    const finding = (seq: number, offset: number, kind: string) => ({
      seq,
      offset,
      kind,
      message: expect.stringMatching(
        /^session: initialize transcript for "[^"]+": duplicate transcript record "tool:call_1"$/,
      ),
      damaged: false,
      wholeTranscript: true,
    });
    const upserted = await replay([
      { operationId: 'o1', events: [complete(system), complete(call), complete(result('m-r1'))] },
      { operationId: 'o2', events: [event('message/upsert', { message: result('m-r2') })] },
    ]);
    expect(upserted.projection.strictness).toEqual([
      finding(4, await offsetOfEvent(upserted.dir, 4), 'message/upsert'),
    ]);
    const inHistory = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          event('history/replace', { messages: [system, call, result('m-r1'), result('m-r2')] }),
        ],
      },
    ]);
    expect(inHistory.projection.strictness).toEqual([
      finding(2, await offsetOfEvent(inHistory.dir, 2), 'history/replace'),
    ]);
    expect(inHistory.problems[0]).toMatchObject({
      data: { offset: inHistory.projection.strictness[0]!.offset, sequence: 2 },
    });
    // Among several events that wrote results, the refusal names the one that wrote the repeat, found by halving.
    const other = (n: number) => [
      complete({
        role: 'assistant',
        id: `m-call-${n}`,
        content: '',
        tool_calls: [{ id: `call_${n}`, name: 'bash', arguments: '{}' }],
      }),
      complete({ role: 'tool', id: `m-result-${n}`, tool_call_id: `call_${n}`, name: 'bash', content: 'out' }),
    ];
    const first = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          event('history/replace', { messages: [system, call, result('m-r1'), result('m-r2')] }),
        ],
      },
      { operationId: 'o2', events: [...other(2), ...other(3), ...other(4)] },
    ]);
    expect(first.projection.strictness).toEqual([finding(2, await offsetOfEvent(first.dir, 2), 'history/replace')]);
    const last = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          ...other(2),
          ...other(3),
          complete(call),
          complete(result('m-r1')),
          event('message/upsert', { message: result('m-r2') }),
        ],
      },
    ]);
    expect(last.projection.strictness).toEqual([finding(8, await offsetOfEvent(last.dir, 8), 'message/upsert')]);
    // A checkpoint changes only what the model is sent, not the transcript Reasonix keys by call.
    const checkpointed = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete(call),
          event('model/context-replace', { messages: [system, call, result('m-r1'), result('m-r2')] }),
        ],
      },
    ]);
    expect(checkpointed.status).toBe('ok');
  });

  it('refuses a repeated message id, notes later refused payloads, and replays nothing past the first', async () => {
    const read = await replay([
      {
        operationId: 'o1',
        turnId: 'turn_a',
        events: [event('turn/start', {}), complete(system), complete({ role: 'user', id: 'm-a', content: 'hi' })],
      },
      {
        operationId: 'o2',
        turnId: 'turn_b',
        events: [
          event('turn/start', {}),
          complete({ role: 'user', id: 'm-a', content: 'again' }),
          event('session/title', { title: 'not applied' }),
          event('turn/end', { status: 'bogus' }),
          event('turn/end', { status: 'completed' }),
        ],
      },
      { operationId: 'o3', turnId: 'turn_c', events: [event('turn/start', {})] },
    ]);
    const projection = read.projection;
    expect(read.status).toBe('damaged');
    expect(projection.strictness.map(({ seq, kind, message, damaged }) => ({ seq, kind, message, damaged }))).toEqual([
      { seq: 5, kind: 'message/complete', message: 'duplicate stable message id "m-a"', damaged: true },
      { seq: 7, kind: 'turn/end', message: 'status "bogus" is not completed, failed or interrupted', damaged: true },
    ]);
    expect(projection.strictness[0]!.offset).toBeLessThan(projection.strictness[1]!.offset);
    expect(projection.refusedAt).toBe(5);
    expect(projection.title).toBeUndefined();
    expect(ids(projection.transcript.map((entry) => entry.message))).toEqual(['m-system', 'm-a']);
    // turn_b started before the refusal and was never seen to end.
    expect([...projection.turns.values()]).toEqual([
      { turnId: 'turn_a', status: 'in_progress', startSeq: 1 },
      { turnId: 'turn_b', status: 'in_progress', startSeq: 4 },
    ]);
    expect(openTurns(projection).map((turn) => turn.turnId)).toEqual(['turn_a', 'turn_b']);
    expect(projection.openFrom()).toBe(1);
  });

  it('ends turns at their start, a turn/end without a start at its own sequence, and a turn/end outside a turn under the id ""', async () => {
    const read = await replay([
      { operationId: 'o1', events: [complete(system)] },
      {
        operationId: 'o2',
        turnId: 'turn_a',
        events: [event('turn/start', {}), complete({ role: 'user', id: 'm-a', content: 'hi' })],
      },
      { operationId: 'o3', turnId: 'turn_b', events: [event('turn/start', {})] },
      { operationId: 'o4', turnId: 'turn_a', events: [event('turn/end', { status: 'failed' })] },
      { operationId: 'o5', turnId: 'turn_c', events: [event('turn/end', { status: 'interrupted' })] },
      { operationId: 'o6', events: [event('turn/end', { status: 'completed' }), event('turn/start', {})] },
    ]);
    const projection = read.projection;
    expect([...projection.turns.values()]).toEqual([
      { turnId: 'turn_a', status: 'failed', startSeq: 2 },
      { turnId: 'turn_b', status: 'in_progress', startSeq: 4 },
      { turnId: 'turn_c', status: 'interrupted', startSeq: 6 },
      { turnId: '', status: 'completed', startSeq: 7 },
    ]);
    expect(openTurns(projection)).toEqual([{ turnId: 'turn_b', status: 'in_progress', startSeq: 4 }]);
    expect(projection.openFrom()).toBe(4);
    // Reasonix holds one turn open, the last started, and any turn/end closes it: none is open here.
    expect(projection.turnLeftOpen.open).toBe('');
  });

  it("holds open the last turn started, by its batch's id, and knows the turns whose turn-finalize operation the log holds", async () => {
    const read = await replay([
      { operationId: 'o1', events: [complete(system)] },
      { operationId: 'o2', turnId: 'turn_a', events: [event('turn/start', {})] },
      // A turn-finalize batch without its turn/end: the turn stays open.
      {
        operationId: 'turn-finalize:turn_a',
        turnId: 'turn_a',
        events: [complete({ role: 'user', id: 'm-a', content: 'hi' })],
      },
    ]);
    const open = read.projection.turnLeftOpen;
    expect(open.open).toBe('turn_a');
    expect(open.finalizedInLog('turn_a')).toBe(true);
    expect(open.finalizedInLog('turn_b')).toBe(false);
  });

  it('replaces the history (every message of the list, one id twice too; local-only ones kept out of the model list) and takes model and identity from legacy/import and session/config', async () => {
    const read = await replay([
      {
        operationId: 'o1',
        events: [
          event('session/config', { modelRef: 'first/model', modelIdentity: 'first-identity' }),
          event('session/config', { modelRef: 'second/model' }),
        ],
      },
    ]);
    expect(read.projection.modelRef).toBe('second/model');
    expect(read.projection.modelIdentity).toBe('first-identity');

    const imported = await replay([
      {
        operationId: 'o1',
        events: [
          complete({ role: 'user', id: 'm-gone', content: 'replaced' }),
          event('legacy/import', {
            messages: [
              system,
              { role: 'user', id: 'm-a', content: 'first' },
              { role: 'user', id: 'm-a', content: 'repeated' },
              { role: 'assistant', id: 'm-l', content: 'local', local_only: true },
              { role: 'assistant', content: 'no id' },
            ],
            modelRef: 'legacy/model',
            modelIdentity: 'legacy-identity',
          }),
        ],
      },
    ]);
    const projection = imported.projection;
    expect(projection.transcript.map((entry) => entry.message.content)).toEqual([
      'You are a careful coding agent.',
      'first',
      'repeated',
      'local',
      'no id',
    ]);
    expect(projection.transcript.map((entry) => entry.seq)).toEqual([2, 2, 2, 2, 2]);
    expect(projection.modelMessages.map((message) => message.content)).toEqual([
      'You are a careful coding agent.',
      'first',
      'repeated',
      'no id',
    ]);
    expect(projection.modelRef).toBe('legacy/model');
    expect(projection.modelIdentity).toBe('legacy-identity');

    const plain = await replay([
      {
        operationId: 'o1',
        events: [
          event('session/config', { modelRef: 'kept/model', modelIdentity: 'kept' }),
          event('legacy/import', { messages: [system] }),
          event('history/replace', { messages: [system, { role: 'user', id: 'm-b', content: 'b' }] }),
        ],
      },
    ]);
    expect(plain.projection.modelRef).toBe('kept/model');
    expect(plain.projection.modelIdentity).toBe('kept');
    expect(ids(plain.projection.modelMessages)).toEqual(['m-system', 'm-b']);
    expect(plain.projection.compactions).toEqual([]);
  });

  it('reads payload keys as Reasonix\'s fields name them, and a message without a role as role ""', async () => {
    const read = await replay([
      {
        operationId: 'o1',
        events: [
          event('session/title', { Title: 'Cased key' }),
          event('session/config', { MODELREF: 'cased/model', ModelIdentity: 'cased' }),
          complete({ id: 'm-norole', content: 'x' } as unknown as Stored),
          event('message/complete', { Message: { Role: 'user', ID: 'm-cased', Content: 'cased' } }),
        ],
      },
    ]);
    const projection = read.projection;
    expect(projection.title).toBe('Cased key');
    expect(projection.titleSequence).toBe(2);
    expect(projection.modelRef).toBe('cased/model');
    expect(projection.modelIdentity).toBe('cased');
    expect(projection.transcript.map((entry) => [entry.message.role, entry.message.id, entry.message.content])).toEqual(
      [
        ['', 'm-norole', 'x'],
        ['user', 'm-cased', 'cased'],
      ],
    );
  });

  it('applies checkpoints of both kinds to the model list only, and notes their sequences', async () => {
    const read = await replay([
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete({ role: 'user', id: 'm-a', content: 'a' }),
          event('model/context-replace', { messages: [system, { role: 'user', id: 'm-s1', content: 'summary one' }] }),
          complete({ role: 'user', id: 'm-b', content: 'b' }),
          event('compaction', { messages: [system, { role: 'user', id: 'm-s2', content: 'summary two' }] }),
        ],
      },
    ]);
    const projection = read.projection;
    expect(projection.compactions).toEqual([3, 5]);
    expect(ids(projection.transcript.map((entry) => entry.message))).toEqual(['m-system', 'm-a', 'm-b']);
    expect(ids(projection.modelMessages)).toEqual(['m-system', 'm-s2']);
  });

  it('names the workspace from the latest host session-context message, whatever event carries it', async () => {
    const host = (id: string, workspace: string) => ({
      role: 'user',
      id,
      origin: 'host',
      content: `<session-context>\nCurrent workspace: "${workspace}"\n</session-context>`,
    });
    const cases: [EventToWrite[], string | undefined][] = [
      [[complete(host('m-h', '/w/one'))], '/w/one'],
      [[complete(host('m-h', '/w/one')), event('message/upsert', { message: host('m-h', '/w/two') })], '/w/two'],
      [[event('history/replace', { messages: [host('m-h', '/w/three')] })], '/w/three'],
      [[event('legacy/import', { messages: [host('m-h', '/w/four')] })], '/w/four'],
      [[event('model/context-replace', { messages: [host('m-h', '/w/five')] })], '/w/five'],
      [[event('compaction', { messages: [host('m-h', '/w/six')] })], '/w/six'],
      [
        [complete({ role: 'user', id: 'm-h', origin: 'host', content: 'Current workspace: "C:\\\\dir \\"quoted\\""' })],
        // Written with Go's %q: read as Go unquotes it.
        'C:\\dir "quoted"',
      ],
      // Not the host's words, or no workspace line: nothing is named.
      [[complete({ ...host('m-h', '/w/typed'), origin: 'user' })], undefined],
      [[complete({ role: 'user', id: 'm-h', origin: 'host', content: 'no workspace here' })], undefined],
      [
        [
          complete(host('m-h', '/w/one')),
          complete({ role: 'user', id: 'm-h2', origin: 'host', content: 'later, none' }),
        ],
        '/w/one',
      ],
    ];
    for (const [events, workspace] of cases)
      expect((await replay([{ operationId: 'o1', events }])).projection.workspace).toBe(workspace);
  });

  it('keeps summaries or only an index when asked', async () => {
    const long = 'x'.repeat(500);
    const batches: BatchToWrite[] = [
      {
        operationId: 'o1',
        events: [
          complete(system),
          complete({ role: 'assistant', id: 'm-a', content: long }),
          event('message/upsert', { message: { role: 'user', id: 'm-u', content: long } }),
          event('history/replace', { messages: [system, { role: 'assistant', id: 'm-b', content: long }] }),
          event('compaction', { messages: [{ role: 'assistant', id: 'm-c', content: long }] }),
        ],
      },
    ];
    const summary = (await replay(batches, { keep: 'summary' })).projection;
    expect(summary.transcript.map((entry) => entry.message.content)).toEqual(['', '']);
    expect(summary.modelMessages.map((message) => message.content)).toEqual(['']);
    const whole = (await replay(batches)).projection;
    expect(whole.transcript.map((entry) => entry.message.content)).toEqual(['You are a careful coding agent.', long]);
    expect(whole.modelMessages.map((message) => message.content)).toEqual([long]);
    const upserted = (
      await replay(
        [
          {
            operationId: 'o1',
            events: [event('message/upsert', { message: { role: 'assistant', id: 'm-u', content: long } })],
          },
        ],
        { keep: 'summary' },
      )
    ).projection;
    expect(upserted.transcript.map((entry) => entry.message.content)).toEqual(['']);
    expect(upserted.modelMessages.map((message) => message.content)).toEqual(['']);

    const index = (await replay(batches, { keep: 'index' })).projection;
    expect(index.transcriptIndex.length).toBe(2);
    expect(() => index.transcript).toThrow(/kept only an index/);
    expect(() => index.modelMessages).toThrow(
      "this replay kept only an index of the messages: read the session with keep 'whole' or 'summary'",
    );
  });
});

describe('a replay of a JSONL transcript', () => {
  it("numbers its messages after one another, all at the meta file's creation time", async () => {
    const source = fixture('jsonl-migrated');
    const read = await readJsonlSession(
      join(source.root, 'projects/-tmp-rxstore-fixture-ws-jsonl-migrated/sessions/legacy-demo.jsonl'),
    );
    expect(read.status).toBe('ok');
    expect(read.projection.transcript.map((entry) => [entry.message.role, entry.seq, entry.batchTime])).toEqual(
      ['system', 'user', 'assistant', 'tool', 'assistant'].map((role, at) => [
        role,
        at + 1,
        Date.parse('2025-06-01T10:00:00Z'),
      ]),
    );
    expect(read.projection.modelMessages).toHaveLength(5);
  });

  it("stops at a second result for one tool call, as Reasonix's migration does", async () => {
    const path = join(await tempDir('rxstore-replay-'), 'twice.jsonl');
    const lines = [
      { role: 'system', content: 's' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'bash', arguments: '{}' }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'one' },
      { role: 'tool', tool_call_id: 'call_1', content: 'two' },
      { role: 'user', content: 'after' },
    ];
    await writeFile(path, lines.map((line) => JSON.stringify(line)).join('\n'));
    const read = await readJsonlSession(path);
    expect(read.status).toBe('damaged');
    expect(
      read.projection.strictness.map(({ seq, offset, kind, damaged }) => ({ seq, offset, kind, damaged })),
    ).toEqual([{ seq: 4, offset: 0, kind: 'message/complete', damaged: false }]);
    expect(read.projection.transcript.map((entry) => entry.message.role)).toEqual(['system', 'assistant', 'tool']);
    expect(read.problems.find((problem) => problem.severity === 'error')).toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      data: { file: path, line: 4 },
    });
  });
});

describe('batches replayed one by one', () => {
  it('give each committed batch of a log with its replay, leave a torn tail out, and throw at a batch Reasonix refuses', async () => {
    const source = fixture('titled');
    const titles: (string | undefined)[] = [];
    for await (const { batch, replay } of replayedBatches(source.dir)) {
      expect(batch.batch.eventCount).toBe(batch.batch.events.length);
      titles.push(replay.title);
    }
    expect(titles).toHaveLength(source.counts.batches);
    expect(titles.filter((title) => title !== undefined)).toEqual(['Refactor plan (fork)']);

    const torn = await copySession(source.dir);
    await cutLog(torn, 3);
    let batches = 0;
    for await (const _ of replayedBatches(torn)) batches += 1;
    expect(batches).toBe(source.counts.batches - 1);

    const refused = await replay([
      { operationId: 'o1', events: [complete(system)] },
      {
        operationId: 'o2',
        events: [complete({ role: 'user', id: 'm-a', content: 'a' }), complete({ role: 'user', content: 'no id' })],
      },
    ]);
    let seen = 0;
    const reading = (async () => {
      for await (const _ of replayedBatches(refused.dir)) seen += 1;
    })();
    await expect(reading).rejects.toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      data: { file: logOf(refused.dir), sequence: 3 },
    });
    await expect(reading).rejects.toThrow(
      'Reasonix 1.38.11 would refuse: invalid message/complete payload at 3: the message is missing or has no id',
    );
    expect(seen).toBe(1);
  });
});

describe('a replay of upserts, retractions and checkpoints', () => {
  const text = (messages: readonly { id?: string | undefined; content?: string | null | undefined }[]) =>
    messages.map((message) => `${message.id ?? ''}:${message.content ?? ''}`);
  const user = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
    role: 'user',
    id,
    content,
    ...extra,
  });

  it('replaces a message where it stands, wherever retractions moved it, and takes it out of the model list when it becomes local-only', async () => {
    const { projection } = await replay([
      { operationId: 'o1', events: [complete(user('a', 'a1')), complete(user('b', 'b1')), complete(user('c', 'c1'))] },
      {
        operationId: 'o2',
        events: [
          event('message/retract', { messageIds: ['a'] }),
          event('message/upsert', { message: user('b', 'b2') }),
          event('message/upsert', { message: user('c', 'c2') }),
        ],
      },
      {
        operationId: 'o3',
        events: [
          complete(user('a', 'a3')),
          event('message/retract', { messageIds: ['b'] }),
          event('message/upsert', { message: user('a', 'a4') }),
        ],
      },
    ]);
    expect(text(projection.transcript.map((entry) => entry.message))).toEqual(['c:c2', 'a:a4']);
    expect(text(projection.modelMessages)).toEqual(['c:c2', 'a:a4']);
    expect(projection.transcriptIndex.length).toBe(2);

    const { projection: local } = await replay([
      { operationId: 'o1', events: [complete(user('a', 'a1')), complete(user('b', 'b1'))] },
      {
        operationId: 'o2',
        events: [
          event('message/upsert', { message: user('a', 'a2') }),
          event('message/upsert', { message: user('a', 'a3', { local_only: true }) }),
        ],
      },
    ]);
    expect(text(local.transcript.map((entry) => entry.message))).toEqual(['a:a3', 'b:b1']);
    expect(text(local.modelMessages)).toEqual(['b:b1']);
  });

  it('after a checkpoint, appends an upserted message the model list lost, and knows the ids only the checkpoint names are not in the transcript', async () => {
    const { projection } = await replay([
      { operationId: 'o1', events: [complete(user('a', 'a1')), complete(user('b', 'b1'))] },
      {
        operationId: 'o2',
        events: [
          event('model/context-replace', {
            messages: [
              user('summary', 'what came before'),
              { role: 'tool', id: 'r-local', tool_call_id: 'call_1', content: 'seen locally', local_only: true },
            ],
          }),
        ],
      },
      {
        operationId: 'o3',
        events: [
          event('message/upsert', { message: user('a', 'a2') }),
          complete(user('d', 'd1')),
          complete({ role: 'tool', id: 'r-1', tool_call_id: 'call_1', content: 'the result' }),
        ],
      },
    ]);
    expect(projection.strictness).toEqual([]);
    // A local-only message of the checkpoint is not sent (go-zero-values-match-reasonix).
    expect(text(projection.modelMessages)).toEqual(['summary:what came before', 'a:a2', 'd:d1', 'r-1:the result']);
    expect(projection.transcriptIndex.has('summary')).toBe(false);
    expect(projection.transcriptIndex.has('a')).toBe(true);
    // What modelView gives is the caller's own list.
    modelView(projection).pop();
    expect(modelView(projection)).toHaveLength(4);
  });

  it('takes a checkpoint as it is, one id twice included, and upserts that id into the first (as Reasonix does: go-zero-values-match-reasonix)', async () => {
    const { projection } = await replay([
      { operationId: 'o1', events: [complete(user('a', 'a1'))] },
      {
        operationId: 'o2',
        events: [
          event('model/context-replace', { messages: [user('k', 'first'), user('b', 'between'), user('k', 'second')] }),
        ],
      },
      { operationId: 'o3', events: [event('message/upsert', { message: user('k', 'upserted') })] },
    ]);
    expect(projection.strictness).toEqual([]);
    expect(text(projection.modelMessages)).toEqual(['k:upserted', 'b:between', 'k:second']);
  });

  it('counts only a tool message that is not local-only as the result of its call', async () => {
    const { projection } = await replay([
      {
        operationId: 'o1',
        events: [
          complete({
            role: 'assistant',
            id: 'm-a',
            content: '',
            tool_calls: [{ id: 'call_1', name: 'bash', arguments: '{}' }],
          }),
          complete(user('m-u', 'not a result', { tool_call_id: 'call_1' })),
          complete({ role: 'tool', id: 'r-1', tool_call_id: 'call_1', content: 'the result' }),
          complete({ role: 'assistant', id: 'm-a2', content: 'nor this', tool_call_id: 'call_1' }),
          complete({ role: 'tool', id: 'r-local', tool_call_id: 'call_1', content: 'kept locally', local_only: true }),
        ],
      },
    ]);
    expect(projection.strictness).toEqual([]);
    expect(ids(projection.transcript.map((entry) => entry.message))).toEqual(['m-a', 'm-u', 'r-1', 'm-a2', 'r-local']);
  });

  it('keeps every message without an id of a replaced history, and reads what a person typed as it is there', async () => {
    const history = [
      { role: 'user', content: null },
      { role: 'user', content: 'second without id' },
      { role: 'tool', content: 'a result without a call id' },
    ];
    const batches: BatchToWrite[] = [
      {
        operationId: 'o1',
        turnId: 'turn_1',
        events: [
          event('turn/start', {}),
          event('history/replace', { messages: history }),
          event('turn/end', { status: 'completed' }),
        ],
      },
    ];
    const whole = (await replay(batches)).projection;
    // Go's decoding leaves a null string unset.
    expect(whole.transcript.map((entry) => entry.message.content)).toEqual([
      undefined,
      'second without id',
      'a result without a call id',
    ]);
    expect(whole.transcriptIndex.typedText(0)).toBeUndefined();
    expect([0, 2].map((at) => whole.transcriptIndex.answeredCall(at))).toEqual(['', '']);
    expect(whole.turns.get('turn_1')).toEqual({ turnId: 'turn_1', status: 'completed', startSeq: 1 });
    const previews = (await replay(batches, { keep: 'index', previews: true })).projection;
    expect([0, 1].map((at) => previews.transcriptIndex.typedText(at))).toEqual([undefined, 'second without id']);
    const index = (await replay(batches, { keep: 'index' })).projection;
    expect(() => index.transcriptIndex.typedText(1)).toThrow(/kept no previews/);
  });
});
