import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { decodePayload, PayloadSchemas } from '../../../src/session/replay/payloads.js';
import { accepted, rules, TAKEN_ID, UNSUPPORTED } from '../../support/sessions/payload-rules.js';

/**
 * The payload rules of Reasonix 1.38.11, judged in process by `decodePayload` (what inspect, read
 * and the writer refuse by): the same pairs the real binary judged in reasonix-decode-rules, and
 * the words each refusal gives a reader after `invalid <kind> payload at <seq>: `.
 */
const bytesOf = (event: EventToWrite): Buffer | undefined =>
  event.payloadJson
    ? Buffer.from(event.payloadJson)
    : event.payload === undefined
      ? undefined
      : Buffer.from(JSON.stringify(event.payload));
const verdict = (kind: string, payload: unknown) => decodePayload(kind, Buffer.from(JSON.stringify(payload)));
const reasonOf = (kind: string, payload: unknown) => {
  const judged = verdict(kind, payload);
  return judged.state === 'refused' ? judged.reason : judged.state;
};

/** Rules about the log around the event (a taken id) or the kind alone, not the payload's bytes. */
const payloadRules = rules.filter(
  (rule) => !JSON.stringify(rule.refused.payload ?? '').includes(TAKEN_ID) && rule.line !== UNSUPPORTED,
);

describe('decodePayload judges each payload as Reasonix 1.38.11 does', () => {
  it.each(payloadRules)('$rule: refused, the nearest valid payload read', (rule) => {
    const refused = decodePayload(rule.refused.kind, bytesOf(rule.refused));
    expect(refused.state).toBe('refused');
    // A receipt Reasonix cannot decode stops the resume, but the session is not damaged.
    expect(refused).toMatchObject({ damaged: rule.refused.kind !== 'submission/accepted' });
    // Where Reasonix names an unknown field, rxstore names the same one.
    const unknown = /^json: unknown field ("[^"]+")$/.exec(rule.cause ?? '');
    if (unknown && refused.state === 'refused')
      expect(refused.reason).toMatch(new RegExp(`^unknown field ${unknown[1]}`));
    const valid = decodePayload(rule.valid.kind, bytesOf(rule.valid));
    expect(valid.state).toBe(
      rule.valid.kind === 'future/receipt' || rule.valid.kind === 'diagnostic'
        ? rule.valid.kind === 'diagnostic'
          ? 'ok'
          : 'unread'
        : 'ok',
    );
  });

  it.each(accepted)('opened by Reasonix, not refused: $rule', ({ event }) => {
    expect(decodePayload(event.kind, bytesOf(event)).state).not.toBe('refused');
  });

  it('kinds Reasonix never reads, or does not know, are not read at all', () => {
    for (const kind of [
      'turn/start',
      'future/thing',
      'session/permission-preset',
      ' session/title',
      'Session/Title',
      'toString',
      'constructor',
    ]) {
      expect(decodePayload(kind, Buffer.from('{not json')), kind).toEqual({ state: 'unread' });
    }
  });

  it('a refusal says what is wrong in the words a reader sees after the event', () => {
    const words: [string, unknown, string][] = [
      ['message/complete', { message: null }, 'the message is missing or has no id'],
      ['message/complete', {}, 'the message is missing or has no id'],
      ['message/upsert', { message: { role: 'user', content: 'x' } }, 'the message is missing or has no id'],
      ['message/upsert', { message: { role: 'user', id: '', content: 'x' } }, 'the message is missing or has no id'],
      ['message/upsert', { message: null }, 'the message is missing or has no id'],
      ['message/retract', {}, 'empty messageIds'],
      ['message/retract', { messageIds: null }, 'empty messageIds'],
      ['message/retract', { messageIds: [''] }, 'invalid or duplicate message id'],
      ['message/retract', { messageIds: ['a '] }, 'invalid or duplicate message id'],
      ['message/retract', { messageIds: ['a', 'b', 'a'] }, 'invalid or duplicate message id'],
      ['message/retract', { messageIds: [null] }, 'invalid or duplicate message id'],
      ['history/replace', { messages: null }, 'messages is missing'],
      ['model/context-replace', {}, 'messages is missing'],
      ['compaction', { trigger: 'auto' }, 'messages is missing'],
      ['legacy/import', {}, 'messages is missing'],
      ['session/config', {}, 'modelRef is blank'],
      ['session/config', { modelRef: '\t ' }, 'modelRef is blank'],
      ['turn/end', {}, 'status "" is not completed, failed or interrupted'],
      ['turn/end', { status: 'Completed' }, 'status "Completed" is not completed, failed or interrupted'],
      ['assistant/attempt', { id: '', action: 'begin' }, 'id is empty'],
      ['assistant/attempt', { id: 'a' }, 'action "" is not begin, discard or commit'],
      ['step/start', {}, 'id is empty'],
      ['step/end', { status: 'done' }, 'id is empty'],
      ['tool/call', { name: 'bash' }, 'id or name is empty'],
      ['tool/call', { id: 't', name: '' }, 'id or name is empty'],
      ['tool/start', { name: 'bash' }, 'id or name is empty'],
      ['tool/start', { id: 't' }, 'id or name is empty'],
      ['tool/result', { name: 'bash', output: 'x' }, 'id or name is empty'],
      ['tool/result', { id: 't' }, 'id or name is empty'],
      ['todo/write', { todos: null }, 'todos must be an array'],
      ['todo/write', { todos: [{ content: ' ', status: 'pending' }] }, 'todos[0].content is invalid'],
      [
        'todo/write',
        {
          todos: [
            { content: 'a', status: 'pending' },
            { content: 'b ', status: 'pending' },
          ],
        },
        'todos[1].content is invalid',
      ],
      ['todo/write', { todos: [null] }, 'todos[0].content is invalid'],
      ['todo/write', { todos: [{ content: 'a' }] }, 'todos[0].status is invalid'],
      [
        'todo/write',
        {
          todos: [
            { content: 'a', status: 'pending' },
            { content: 'b', status: 'done' },
          ],
        },
        'todos[1].status is invalid',
      ],
      ['interaction/created', { state: 'pending' }, 'id is empty or state is not pending'],
      ['interaction/created', { id: 'i', state: 'cancelled' }, 'id is empty or state is not pending'],
      [
        'interaction/resolved',
        { state: 'answered' },
        'id is empty or state is not answered, rejected, cancelled or unavailable',
      ],
      ['interaction/resolved', { id: 'i' }, 'id is empty or state is not answered, rejected, cancelled or unavailable'],
      ['session/title', { title: 1 }, 'title: Invalid input: expected string, received number'],
      ['session/title', [], 'Invalid input: expected object, received array'],
      ['tool/start', { id: 't', name: 'bash', args: '{}', extra: 1 }, 'unknown field "args"'],
      ['legacy/import', { source: { path: 'x', bogus: 1 }, messages: [] }, 'unknown field "bogus" in source'],
      [
        'message/complete',
        { message: { id: 'm', tool_calls: [{ name: 'bash', bogus: 1 }] } },
        'unknown field "bogus" in message.tool_calls.0',
      ],
      // The v4 reader knows only the flat tool-call form: OpenAI's nested one is refused.
      [
        'message/complete',
        {
          message: {
            id: 'm',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{}' } }],
          },
        },
        'unknown field "type" in message.tool_calls.0',
      ],
      // Go names the first problem in the document: here the unknown field, before the wrong type.
      ['session/title', { bogus: 2, title: 1 }, 'unknown field "bogus"'],
      ['plan/state', [], 'not a JSON object'],
      ['plan/state', null, 'not a JSON object'],
      ['goal/state', 'x', 'not a JSON object'],
    ];
    for (const [kind, payload, reason] of words)
      expect(reasonOf(kind, payload), `${kind} ${JSON.stringify(payload)}`).toBe(reason);
  });

  it('what each check lets through is read, with the keys as Reasonix names its fields', () => {
    const read: [string, unknown][] = [
      ['message/retract', { messageIds: ['a', 'b'] }],
      ['session/config', { modelRef: 'mock/mock-model', modelIdentity: 'mock' }],
      ...['completed', 'failed', 'interrupted'].map((status): [string, unknown] => ['turn/end', { status }]),
      ...['begin', 'discard', 'commit'].map((action): [string, unknown] => [
        'assistant/attempt',
        { id: 'a', messageId: 'm', action, attempt: 1, max: 3, reason: 'r' },
      ]),
      ['step/start', { id: 's', status: 'running' }],
      ['step/end', { id: 's', status: 'done' }],
      [
        'todo/write',
        {
          todos: [
            { content: 'a', status: 'pending' },
            { content: 'b', status: 'in_progress' },
            { content: 'c', status: 'completed' },
          ],
        },
      ],
      ['todo/write', { todos: [] }],
      ['interaction/created', { id: 'i' }],
      [
        'interaction/created',
        {
          id: 'i',
          toolCallId: 't',
          kind: 'k',
          state: 'pending',
          sessionId: 's',
          headId: 'h',
          turnId: 't',
          runtimeEpoch: 'e',
        },
      ],
      ...['answered', 'rejected', 'cancelled', 'unavailable'].map((state): [string, unknown] => [
        'interaction/resolved',
        { id: 'i', state },
      ]),
      ['plan/state', { steps: [] }],
      ['goal/state', {}],
      ['compaction', { messages: [{ role: 'user', id: 'u', content: 'x' }], trigger: 'auto', sourceSequences: [3, 4] }],
      ['model/context-replace', { messages: [], reason: 'r', sourceSequences: [0] }],
      [
        'legacy/import',
        {
          source: { path: 'p', size: 1, sha256: 's', version: 'v', legacyHeadId: 'h' },
          messages: [],
          goal: { x: 1 },
          modelRef: 'm',
          modelIdentity: 'i',
        },
      ],
      ['tool/start', { id: 't', name: 'bash' }],
    ];
    for (const [kind, payload] of read)
      expect(verdict(kind, payload), `${kind} ${JSON.stringify(payload)}`).toEqual({ state: 'ok', value: payload });
    // Its fields are the binary's: every one read, and a key it does not have refused.
    const recovery = {
      state: 'waiting',
      call_id: 'c',
      attempt_id: 'a',
      requires_user_decision: true,
      read_only: false,
      phase: 'p',
      reason: 'r',
      next_attempt_at: 1,
      waited_ms: 2,
      wait_budget_ms: 3,
      waiting: true,
    };
    expect(verdict('runtime/recovery', recovery)).toEqual({ state: 'ok', value: recovery });
    expect(verdict('runtime/recovery', { callId: 'c' })).toMatchObject({ state: 'refused', damaged: true });
    expect(decodePayload('message/complete', Buffer.from('{"MESSAGE":{"Id":"m","Role":"user"}}'))).toEqual({
      state: 'ok',
      value: { message: { id: 'm', role: 'user' } },
    });
  });

  it('a tool call or result may carry every field Reasonix knows for it', () => {
    const call = {
      id: 't',
      name: 'bash',
      args: '{}',
      runState: 'done',
      diagnostic: { a: 1 },
      resolvedName: 'bash',
      capabilityId: 'c',
      readOnly: true,
      truncated: false,
      durationMs: 5,
      startedAt: 1,
      endedAt: 6,
      partial: false,
      argChars: 2,
      refreshed: false,
      parentId: 'p',
      attemptId: 'a',
      subagentRef: 's',
      subagentStatus: 'ok',
      subagentErrorCode: '',
      subagentRetryable: false,
      diff: '',
      added: 1,
      removed: 0,
      profile: { p: 1 },
      execution: {},
      presentedFiles: [{ path: 'a' }],
      workspaceMutation: true,
      workspacePaths: ['a'],
      workspaceAllPaths: false,
    };
    expect(verdict('tool/call', call)).toEqual({ state: 'ok', value: call });
    const result = {
      ...call,
      error: '',
      output: 'x',
      state: 'done',
      todos: [{ content: 'a', status: 'pending' }],
      todoWritten: true,
    };
    expect(verdict('tool/result', result)).toEqual({ state: 'ok', value: result });
    expect(reasonOf('tool/call', { ...call, todos: [] })).toBe('unknown field "todos"');
    expect(reasonOf('tool/call', { ...call, durationMs: 1.5 })).toMatch(/^durationMs: /);
  });

  it('an empty payload is refused as Go does, save a diagnostic, which may be empty', () => {
    for (const kind of ['session/title', 'message/complete', 'plan/state', 'goal/state']) {
      expect(decodePayload(kind, undefined), kind).toMatchObject({ state: 'refused', damaged: true });
      expect(decodePayload(kind, Buffer.alloc(0)), kind).toMatchObject({ state: 'refused', damaged: true });
    }
    expect(decodePayload('session/title', Buffer.alloc(0))).toEqual({
      state: 'refused',
      reason: 'unexpected EOF',
      damaged: true,
    });
    expect(decodePayload('diagnostic', undefined)).toEqual({ state: 'ok', value: undefined });
    expect(decodePayload('diagnostic', Buffer.alloc(0))).toEqual({ state: 'ok', value: undefined });
    expect(decodePayload('diagnostic', Buffer.from('[1,"a"]'))).toEqual({ state: 'ok', value: [1, 'a'] });
    expect(decodePayload('diagnostic', Buffer.from('{x'))).toMatchObject({
      state: 'refused',
      damaged: true,
      reason: expect.stringMatching(/JSON/),
    });
    expect(decodePayload('session/title', Buffer.from('{"title":'))).toMatchObject({
      state: 'refused',
      damaged: true,
      reason: expect.stringMatching(/JSON/),
    });
  });

  it('an already parsed payload is judged as its bytes would be', () => {
    expect(decodePayload('plan/state', undefined, { steps: 1 })).toEqual({ state: 'ok', value: { steps: 1 } });
    expect(decodePayload('plan/state', Buffer.from('{}'), [])).toMatchObject({
      state: 'refused',
      reason: 'not a JSON object',
    });
    expect(decodePayload('diagnostic', Buffer.from('{x'), { parsed: true })).toEqual({
      state: 'ok',
      value: { parsed: true },
    });
    expect(decodePayload('session/title', Buffer.from('{"title":1}'), { title: 'parsed' })).toEqual({
      state: 'ok',
      value: { title: 'parsed' },
    });
    expect(decodePayload('turn/end', undefined, { status: 'failed' })).toEqual({
      state: 'ok',
      value: { status: 'failed' },
    });
  });

  it('a submission receipt that is not one stops a resume without damaging the session', () => {
    const receipt = {
      fingerprintVersion: 1,
      // One string, the digests joined with commas (Reasonix 1.38.11 refuses a list).
      acceptedAttachmentDigests: 'd1,d2',
      sessionId: 's',
      submissionId: 'u',
      fingerprint: 'f',
      turnId: 't',
      messageId: 'm',
    };
    expect(verdict('submission/accepted', receipt)).toEqual({ state: 'ok', value: receipt });
    // Decoded as a plain json.Unmarshal decodes it: an unknown key is ignored, a list of digests refused.
    expect(verdict('submission/accepted', { ...receipt, bogus: 1 })).toEqual({ state: 'ok', value: receipt });
    expect(verdict('submission/accepted', { ...receipt, acceptedAttachmentDigests: ['d1'] })).toMatchObject({
      state: 'refused',
      damaged: false,
    });
    expect(verdict('submission/accepted', { fingerprintVersion: 'one' })).toEqual({
      state: 'refused',
      reason: 'fingerprintVersion: Invalid input: expected number, received string',
      damaged: false,
    });
    expect(decodePayload('submission/accepted', Buffer.alloc(0))).toEqual({
      state: 'refused',
      reason: 'unexpected EOF',
      damaged: false,
    });
  });
});

describe('PayloadSchemas read the content of the kinds replayed into the transcript', () => {
  it('takes the fields rxstore uses and refuses a value of the wrong type in them', () => {
    const message = { role: 'user', id: 'm', content: 'x' };
    const wrong: [keyof typeof PayloadSchemas, unknown][] = [
      ['message/complete', { message: { role: 1 } }],
      ['message/upsert', {}],
      ['message/retract', { messageIds: [1] }],
      ['history/replace', { messages: [{ role: 2 }] }],
      ['model/context-replace', { messages: 'x' }],
      ['compaction', { messages: [message], trigger: 1 }],
      ['legacy/import', { messages: [message], modelRef: 1 }],
      ['session/title', { title: 1 }],
      ['session/config', {}],
      ['turn/end', { status: 'cancelled' }],
      ['assistant/attempt', { id: 'a' }],
    ];
    for (const [kind, payload] of wrong) expect(PayloadSchemas[kind].safeParse(payload).success, kind).toBe(false);
    expect(PayloadSchemas['session/title'].parse({})).toEqual({ title: '' });
    expect(
      PayloadSchemas['history/replace'].parse({ messages: [message], reason: 'r', sourceSequences: null, extra: 1 }),
    ).toEqual({ messages: [message], reason: 'r', sourceSequences: null, extra: 1 });
  });
});
