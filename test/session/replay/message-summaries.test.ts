import { describe, expect, it } from 'vitest';
import { createSession, type Message } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { FIXTURE_NAMES, fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A session read with `keep: 'summary'` (what `inspect --messages` lists from): each message cut to
 * who said it and where it sits, the start of what users and tools said, and of each tool call
 * whether its arguments are a whole JSON object.
 */
const KEPT_KEYS = [
  'role',
  'id',
  'origin',
  'local_only',
  'tool_call_id',
  'name',
  'createdAt',
  'raw_content',
  'content',
  'tool_calls',
];
const start = (text: string) => text.slice(0, 200);

describe('message summaries', () => {
  it.each(FIXTURE_NAMES)(
    '%s: each summary keeps who, where and the start of what a user or tool said',
    async (name) => {
      const { dir } = fixture(name);
      const whole = (await readSession(dir)).projection.transcript;
      const summary = (await readSession(dir, { keep: 'summary' })).projection.transcript;
      expect(summary.map((entry) => entry.seq)).toEqual(whole.map((entry) => entry.seq));
      for (const [at, { message }] of whole.entries()) {
        const kept = summary[at]!.message;
        for (const key of Object.keys(kept)) expect(KEPT_KEYS).toContain(key);
        // Only the text may be absent and still named: a field a message does not have is left out.
        for (const [key, value] of Object.entries(kept)) if (key !== 'content') expect(value, key).not.toBeUndefined();
        expect([kept.role, kept.id, kept.origin, kept.tool_call_id, kept.name, kept.createdAt]).toEqual([
          message.role,
          message.id,
          message.origin,
          message.tool_call_id,
          message.name,
          message.createdAt,
        ]);
        expect(kept.local_only).toBe(message.local_only || undefined);
        const said = message.role === 'user' || message.role === 'tool';
        expect(kept.content).toBe(
          typeof message.content === 'string' ? (said ? start(message.content) : '') : message.content,
        );
        expect(kept.raw_content).toBe(said && message.raw_content ? start(message.raw_content) : undefined);
        expect(kept.tool_calls).toEqual(
          message.tool_calls?.map((call) => ({ id: call.id, name: call.name, arguments: '{}' })),
        );
      }
    },
  );

  it('payload-ref: a long prompt and a long tool result are cut to their first 200 characters', async () => {
    const summary = (await readSession(fixture('payload-ref').dir, { keep: 'summary' })).projection.transcript.map(
      (entry) => entry.message,
    );
    const user = summary.find((message) => message.role === 'user' && message.origin === 'user')!;
    const tool = summary.find((message) => message.role === 'tool')!;
    expect(user.content).toHaveLength(200);
    expect(user.raw_content).toHaveLength(200);
    expect(user.content).toMatch(
      /^Summarise these lines:\nline 00000 of generated text that makes a large payload\nline 00001/,
    );
    expect(tool.content).toHaveLength(200);
    expect(tool.content).toMatch(/^line 00000 of generated text that makes a large payload\n/);
    expect(tool.raw_content).toHaveLength(200);
    expect(summary.find((message) => message.role === 'assistant' && message.tool_calls)!.tool_calls).toEqual([
      { id: 'call_cat', name: 'bash', arguments: '{}' },
    ]);
  });

  it('interrupted: a local-only record is summarised as local-only, with no text', async () => {
    const summary = (await readSession(fixture('interrupted').dir, { keep: 'summary' })).projection.transcript.map(
      (entry) => entry.message,
    );
    const local = summary.filter((message) => message.local_only);
    expect(local).toHaveLength(2);
    for (const message of local)
      expect(message).toStrictEqual({
        role: 'tool',
        id: message.id,
        local_only: true,
        tool_call_id: '__reasonix_local_only__',
        name: '__reasonix_local_only__',
        content: undefined,
      });
  });

  it('a text of exactly 200 characters is kept whole; tool-call arguments are told apart as object, none or cut', async () => {
    const exact = 'x'.repeat(199) + '!';
    const longer = `${exact}and more`;
    const message = (fields: Record<string, unknown>) => ({ kind: 'message/complete', payload: { message: fields } });
    // Arguments that are no object, written on purpose: Reasonix would take no new turn after them.
    const { dir } = await createSession({
      storeDir: await tempDir(),
      validate: false,
      batches: [
        {
          operationId: 'turn-1',
          events: [
            message({
              role: 'user',
              id: 'u1',
              origin: 'user',
              content: exact,
              raw_content: longer,
              createdAt: 1767323045123,
            }),
            message({
              role: 'assistant',
              id: 'a1',
              content: 'thinking aloud',
              reasoning_content: 'hidden',
              tool_calls: [
                { id: 'c1', name: 'bash', arguments: '{"command":"ls"}' },
                { id: 'c2', name: 'bash', arguments: '' },
                { id: 'c3', name: 'bash', arguments: '{"command":' },
                { id: 'c4', name: 'bash', arguments: '[1]' },
              ],
            }),
            message({ role: 'tool', id: 't1', tool_call_id: 'c1', name: 'bash', content: '' }),
            message({ role: 'user', id: 'u2', origin: 'host', content: longer }),
          ],
        },
      ],
    });
    const summary = (await readSession(dir, { keep: 'summary' })).projection.transcript.map((entry) => entry.message);
    expect(summary).toStrictEqual<Message[]>([
      { role: 'user', id: 'u1', origin: 'user', createdAt: 1767323045123, raw_content: exact, content: exact },
      {
        role: 'assistant',
        id: 'a1',
        content: '',
        tool_calls: [
          { id: 'c1', name: 'bash', arguments: '{}' },
          { id: 'c2', name: 'bash', arguments: '' },
          { id: 'c3', name: 'bash', arguments: 'not an object' },
          { id: 'c4', name: 'bash', arguments: 'not an object' },
        ],
      },
      { role: 'tool', id: 't1', tool_call_id: 'c1', name: 'bash', content: '' },
      { role: 'user', id: 'u2', origin: 'host', content: exact },
    ]);
  });

  it('a message without an id, a call without a name or arguments, and a short text with a lone surrogate are summarised as they are', async () => {
    const history = [
      { role: 'user', content: 'half a pair \ud800' },
      { role: 'assistant', content: 'calling', tool_calls: [{ id: 'c1' }] },
      { role: 'tool', tool_call_id: 'c1', content: `${'y'.repeat(199)}\ud800` },
    ];
    const { dir } = await createSession({
      storeDir: await tempDir(),
      validate: false,
      batches: [{ operationId: 'o1', events: [{ kind: 'history/replace', payload: { messages: history } }] }],
    });
    const whole = (await readSession(dir)).projection.transcript.map((entry) => entry.message);
    const summary = (await readSession(dir, { keep: 'summary' })).projection.transcript.map((entry) => entry.message);
    expect(summary).toStrictEqual<Message[]>([
      { role: 'user', content: whole[0]!.content },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: undefined, arguments: '' }] },
      { role: 'tool', tool_call_id: 'c1', content: whole[2]!.content },
    ]);
  });
});
