import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { providerMessages } from '../../../src/session/replay/views.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { complete, messageId, sampleBatches } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

/** A workspace of this test's own, so that no two tests (or two runs of the suite) share one. */
const newWorkspace = async () => join(await tempDir('rxstore-writer-ws-'), 'writer');

describe.skipIf(!reasonixBinary())(reasonixTitle('sessions rxstore writes are resumed by Reasonix 1.38.11'), () => {
  it.concurrent('a session with tool calls, a payload over 64 KiB and CJK: Reasonix resumes it, appends, and every digest still verifies', async () => {
    const created = await createSession({ storeDir: await tempDir(), batches: sampleBatches() });
    const before = await readSession(created.dir);
    expect(before.payloadRefs).toBe(1);
    const resumed = await resumeWithReasonix(created.dir, {
      workspace: await newWorkspace(),
      prompt: 'Summarise what we did.',
    });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      const sent = resumed.requests[0]!.messages.map(asSent);
      expect(sent.slice(0, -2)).toEqual(providerMessages(before.projection));
      const after = await readSession(resumed.sessionDir);
      expect(after.status).toBe('ok');
      expect(after.batches).toBeGreaterThan(before.batches);
      expect(after.projection.transcript.slice(0, before.projection.transcript.length)).toEqual(
        before.projection.transcript,
      );
      expect(after.projection.transcript.at(-1)!.message).toMatchObject({ role: 'assistant', content: 'Resumed.' });
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });

  it.concurrent('message/upsert, message/retract and history/replace project as Reasonix projects them', async () => {
    const [system, user1, reply1, user2, reply2, user3, reply3] = Array.from({ length: 7 }, messageId);
    const batches = [
      {
        operationId: 'session-create',
        events: [
          complete({ role: 'system', id: system!, content: 'You are terse.' }),
          { kind: 'session/config', payload: { modelRef: 'mock/mock-model' } },
        ],
      },
      {
        operationId: 't1',
        events: [
          complete({ role: 'user', id: user1!, origin: 'user', content: 'first question' }),
          complete({ role: 'assistant', id: reply1!, content: 'first draft' }),
        ],
      },
      // An upsert replaces in place; one of an unknown id appends.
      {
        operationId: 't1-fix',
        events: [
          {
            kind: 'message/upsert',
            payload: { message: { role: 'assistant', id: reply1!, content: 'first answer, revised' } },
          },
        ],
      },
      {
        operationId: 't2',
        events: [
          complete({ role: 'user', id: user2!, origin: 'user', content: 'second question' }),
          complete({ role: 'assistant', id: reply2!, content: 'second answer' }),
        ],
      },
      {
        operationId: 't2-drop',
        events: [{ kind: 'message/retract', payload: { messageIds: [user2!, reply2!, 'no-such-id'], reason: 'test' } }],
      },
      {
        operationId: 't3',
        events: [
          complete({ role: 'user', id: user3!, origin: 'user', content: 'third question' }),
          complete({ role: 'assistant', id: reply3!, content: 'third answer' }),
        ],
      },
      {
        operationId: 'rewrite',
        events: [
          {
            kind: 'history/replace',
            payload: {
              messages: [
                { role: 'system', id: system!, content: 'You are terse.' },
                { role: 'user', id: user1!, origin: 'user', content: 'first question' },
                { role: 'assistant', id: reply1!, content: 'first answer, revised' },
                { role: 'user', id: user3!, origin: 'user', content: 'third question, rewritten' },
              ],
              reason: 'test',
            },
          },
        ],
      },
      {
        operationId: 't4',
        events: [
          {
            kind: 'message/upsert',
            payload: { message: { role: 'assistant', id: messageId(), content: 'an appended upsert' } },
          },
        ],
      },
    ];
    const created = await createSession({ storeDir: await tempDir(), batches });
    const read = await readSession(created.dir);
    expect(read.status).toBe('ok');
    expect(read.projection.transcript.map((entry) => entry.message.content)).toEqual([
      'You are terse.',
      'first question',
      'first answer, revised',
      'third question, rewritten',
      'an appended upsert',
    ]);
    const resumed = await resumeWithReasonix(created.dir, { workspace: await newWorkspace(), prompt: 'And now?' });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      const sent = resumed.requests[0]!.messages.map(asSent);
      expect(sent.slice(0, -2)).toEqual(providerMessages(read.projection));
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });

  it.concurrent('batches rxstore appends to a session Reasonix wrote are picked up when Reasonix resumes it', async () => {
    const source = fixture('tool-calls');
    const dir = await copySession(source.dir);
    const before = await readSession(dir);
    await appendBatches(dir, [
      {
        operationId: 'rxstore-test:append',
        events: [
          complete({ role: 'user', id: messageId(), origin: 'user', content: 'A note appended by rxstore.' }),
          complete({ role: 'assistant', id: messageId(), content: 'Noted 👍' }),
        ],
      },
    ]);
    const after = await readSession(dir);
    expect(after.status).toBe('ok');
    expect(after.batches).toBe(before.batches + 1);
    expect(after.writerGeneration).toBe((before.manifest?.writerGeneration ?? 0) + 1);
    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Did you see the note?' });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.requests[0]!.messages.map(asSent).slice(0, -2)).toEqual(providerMessages(after.projection));
      expect(resumed.requests[0]!.messages.map((message) => message.content)).toContain('Noted 👍');
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
