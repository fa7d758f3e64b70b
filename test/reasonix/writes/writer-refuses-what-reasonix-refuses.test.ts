import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';
import { RefusedBatchError } from '../../../src/errors/index.js';

const workspace = '/tmp/rxstore-test-ws/writer-refuses';
const start = (): BatchToWrite => ({
  operationId: 'session-create',
  events: [
    complete({ role: 'system', id: messageId(), content: 'You are terse.' }),
    { kind: 'session/config', payload: { modelRef: 'mock/mock-model' } },
  ],
});

interface RefusedCase {
  name: string;
  /** The batches after the first; the one refused is the last. */
  batches: () => BatchToWrite[];
  /** The refused event, 1-based within its batch. */
  event: number;
  reasonix: RegExp;
}

const cases: RefusedCase[] = [
  {
    name: 'a message without an id',
    batches: () => [
      {
        operationId: 't1',
        events: [
          complete({ role: 'user', id: messageId(), content: 'a' }),
          { kind: 'message/complete', payload: { message: { role: 'user', content: 'no id' } } },
        ],
      },
    ],
    event: 2,
    reasonix: /^error: damaged session store: invalid message\/complete payload at 4$/,
  },
  {
    name: 'a misspelled event kind',
    batches: () => [
      {
        operationId: 't1',
        events: [{ kind: 'message/compelte', payload: { message: { role: 'user', id: messageId(), content: 'x' } } }],
      },
    ],
    event: 1,
    reasonix: /^error: unsupported session storage version: /,
  },
  {
    name: 'a message with a key Reasonix does not know',
    batches: () => [
      { operationId: 't1', events: [complete({ role: 'user', id: messageId(), content: 'x', timestamp: 5 })] },
    ],
    event: 1,
    reasonix: /^error: damaged session store: invalid message\/complete payload at 3: json: unknown field "timestamp"$/,
  },
  {
    name: 'a message id used twice',
    batches: () => {
      const id = messageId();
      return [
        { operationId: 't1', events: [complete({ role: 'user', id, content: 'x' })] },
        { operationId: 't2', events: [complete({ role: 'assistant', id, content: 'y' })] },
      ];
    },
    event: 1,
    reasonix: /^error: damaged session store: invalid message\/complete payload at 4: duplicate stable message id "/,
  },
  {
    name: 'an operation id repeated with other events',
    batches: () => [
      { operationId: 't1', events: [{ kind: 'session/title', payload: { title: 'one' } }] },
      { operationId: 't1', events: [{ kind: 'session/title', payload: { title: 'two' } }] },
    ],
    event: 0,
    reasonix: /^error: damaged session store: conflicting operation "t1"$/,
  },
  {
    name: 'a turn/end with a status Reasonix does not know',
    batches: () => [
      {
        operationId: 't1',
        turnId: 'turn_1',
        events: [
          { kind: 'turn/start', payload: { status: 'in_progress' } },
          { kind: 'turn/end', payload: { status: 'cancelled' } },
        ],
      },
    ],
    event: 2,
    reasonix: /^error: damaged session store: invalid turn\/end payload at 4$/,
  },
];

describe('the writer refuses what Reasonix 1.38.11 refuses', () => {
  it.each(cases)('createSession refuses $name, naming the batch and event, and writes nothing', async (refused) => {
    const storeDir = await tempDir();
    const batches = [start(), ...refused.batches()];
    const error = await createSession({ storeDir, batches }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusedBatchError);
    expect((error as RefusedBatchError).code).toBe('RX_WRITE_REFUSED');
    const where = `batch ${batches.length} (operation ${JSON.stringify(batches.at(-1)!.operationId)})${refused.event ? `, event ${refused.event}` : ''}`;
    expect((error as Error).message).toContain(where);
    expect(await readdir(storeDir)).toEqual([]);
  });

  it('appendBatches refuses after the log it appends to: a message id already there, the log left as it was', async () => {
    const source = fixture('plain-chat');
    const dir = await copySession(source.dir);
    const before = await readFile(logOf(dir));
    const taken = (await readSession(dir)).projection.transcript[1]!.message.id!;
    const error = await appendBatches(dir, [
      { operationId: 'again', events: [complete({ role: 'user', id: taken, content: 'again' })] },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusedBatchError);
    expect((error as Error).message).toMatch(
      /batch 1 \(operation "again"\), event 1 \(message\/complete\): invalid message\/complete payload: duplicate stable message id/,
    );
    expect(await readFile(logOf(dir))).toEqual(before);
  });

  it.skipIf(!reasonixBinary()).concurrent.each(cases)(
    reasonixTitle(`with validation off, $name is written, and the real Reasonix refuses it too`),
    async (refused) => {
      const created = await createSession({
        storeDir: await tempDir(),
        batches: [start(), ...refused.batches()],
        validate: false,
      });
      expect(['damaged', 'unsupported']).toContain((await readSession(created.dir)).status);
      const resumed = await resumeWithReasonix(created.dir, {
        workspace: join(workspace, created.id),
        prompt: 'Hello?',
      });
      try {
        const said = `${resumed.stdout}\n${resumed.stderr}`.split('\n').map((line) => line.trim());
        expect(resumed.code, said.join('\n')).toBe(1);
        expect(
          said.some((line) => refused.reasonix.test(line)),
          said.join('\n'),
        ).toBe(true);
      } finally {
        await rm(resumed.home, { recursive: true, force: true });
      }
    },
  );

  describe('a record key held twice is judged on what the whole log leaves, as Reasonix judges it', () => {
    const call = () =>
      complete({
        role: 'assistant',
        id: messageId(),
        content: '',
        tool_calls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
      });
    const result = (id: string) => complete({ role: 'tool', id, tool_call_id: 'c1', name: 'bash', content: id });
    const said = () => complete({ role: 'user', id: messageId(), content: 'run it' });
    const second = messageId();
    const answeredTwice = (): BatchToWrite[] => [
      start(),
      { operationId: 't1', events: [said(), call(), result(messageId())] },
      { operationId: 't2', events: [result(second)] },
    ];

    it("a second result for a call, left in the log, is refused with Reasonix's words, nothing written", async () => {
      const storeDir = await tempDir();
      const error = await createSession({ storeDir, batches: answeredTwice() }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RefusedBatchError);
      expect((error as Error).message).toMatch(
        /refused to write batches 1–3: Reasonix would refuse to open the session they leave \(session: initialize transcript for "[^"]+": duplicate transcript record "tool:c1"\)/,
      );
      expect(await readdir(storeDir)).toEqual([]);
    });

    it.skipIf(!reasonixBinary())(
      reasonixTitle('taken back by a later batch, it is written, and the real Reasonix goes on with the session'),
      async () => {
        const batches = [
          ...answeredTwice(),
          { operationId: 't3', events: [{ kind: 'message/retract', payload: { messageIds: [second] } }] },
        ];
        const created = await createSession({ storeDir: await tempDir(), batches });
        expect((await readSession(created.dir)).status).toBe('ok');
        const resumed = await resumeWithReasonix(created.dir, {
          workspace: join(workspace, created.id),
          prompt: 'Hello?',
        });
        try {
          expect(resumed.code, resumed.stderr).toBe(0);
        } finally {
          await rm(resumed.home, { recursive: true, force: true });
        }
      },
    );
  });
});
