import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import type { Message } from '../../../src/session/replay/message.js';
import { providerMessages } from '../../../src/session/replay/views.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { complete, toolResult } from '../../support/sessions/messages.js';

/**
 * How Reasonix 1.38.11 builds the request it sends from the model's list: each assistant message's
 * calls followed by their results in call order (from the tool messages right after it, the last
 * for a call winning), a stand-in result for a call without one, tool messages anywhere else left
 * out, a result named by its call, no name on other messages, `provider_content` in place of
 * `content`. Each case is appended to a session Reasonix wrote; rxstore's provider messages must be
 * what the real Reasonix sends.
 */
const source = fixture('plain-chat');
const assistant = (id: string, ...calls: string[]) =>
  complete({
    role: 'assistant',
    id,
    content: '',
    tool_calls: calls.map((call) => ({ id: call, name: call === '' ? 'bash' : `tool_${call}`, arguments: '{}' })),
  });
const result = (id: string, call: string | undefined, extra: Partial<Message> = {}) =>
  complete(toolResult(id, call, { content: `out ${id}`, ...extra }));
const user = (id: string, extra: object = {}) => complete({ role: 'user', id, content: `user ${id}`, ...extra });

const cases: [string, EventToWrite[]][] = [
  ['a result that answers no call is left out', [user('u1'), result('t1', 'nowhere'), result('t2', undefined)]],
  ['results come in the order of their calls', [assistant('a1', 'c1', 'c2'), result('t2', 'c2'), result('t1', 'c1')]],
  [
    'a call without a result gets the stand-in, in its place',
    [assistant('a1', 'c1', 'c2'), result('t2', 'c2'), user('u1')],
  ],
  ["a result after a user message is not the call's", [assistant('a1', 'c1'), user('u1'), result('t1', 'c1')]],
  [
    "a result after another assistant message is not the call's",
    [assistant('a1', 'c1'), complete({ role: 'assistant', id: 'a2', content: 'more' }), result('t1', 'c1')],
  ],
  ['the last call of the log without a result', [assistant('a1', 'c1')]],
  ["a call without an id: neither its id nor the stand-in's call id is sent", [assistant('a1', '')]],
  ['a result without a call id answers a call without one', [assistant('a1', ''), result('t1', undefined)]],
  [
    "names: a result takes its call's, other messages none",
    [
      user('u1', { name: 'bob' }),
      complete({ role: 'assistant', id: 'a0', content: 'hi', name: 'al' }),
      assistant('a1', 'c1'),
      result('t1', 'c1', { name: 'other' }),
    ],
  ],
  [
    'provider_content is sent in place of content, when not empty',
    [user('u1', { provider_content: 'P' }), user('u2', { provider_content: '' })],
  ],
  [
    'two results for one call in a checkpoint: the last is sent',
    [
      {
        kind: 'model/context-replace',
        payload: {
          messages: [
            { role: 'system', id: 's', content: 'sys' },
            { role: 'assistant', id: 'a1', content: '', tool_calls: [{ id: 'c1', name: 'bash', arguments: '{}' }] },
            { role: 'tool', id: 't1', tool_call_id: 'c1', content: 'first' },
            { role: 'tool', id: 't2', tool_call_id: 'c1', content: 'second' },
          ],
        },
      },
    ],
  ],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle(`rxstore's provider messages are the request Reasonix 1.38.11 sends`),
  () => {
    it.concurrent.each(cases)('%s', async (_, events) => {
      const dir = await copySession(source.dir);
      await appendBatch(dir, events);
      const read = await readSession(dir);
      const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
      await rm(run.home, { recursive: true, force: true });
      expect(run.code).toBe(0);
      expect(read.status).toBe('ok');
      // Reasonix appends the new turn: its host session-context message and the typed prompt.
      expect(run.requests[0]!.messages.map(asSent).slice(0, -2)).toEqual(providerMessages(read.projection));
    });
  },
);
