import type { EventToWrite } from '../../../src/codec/encode-batch.js';

/**
 * The payload rules of Reasonix 1.38.11 (internal/session projection.go), each as a pair: an event
 * breaking the rule, which the real Reasonix refuses, and the nearest event keeping it, which it
 * opens (test/reasonix/reads/reasonix-decode-rules.test.ts judges every pair with the real binary).
 */
export const raw = (kind: string, text: string, extra: Partial<EventToWrite> = {}): EventToWrite => ({
  kind,
  payloadJson: Buffer.from(text),
  ...extra,
});
export const message = (fields: Record<string, unknown>): EventToWrite => ({
  kind: 'message/complete',
  payload: { message: { role: 'user', id: 'rx-rule-1', content: 'hi', ...fields } },
});
export const TAKEN_ID = '__taken__';
/** A message/complete payload nested `depth` levels deep in all (the payload's object is the first). */
const nested = (depth: number) =>
  raw(
    'message/complete',
    `{"message":{"role":"user","id":"rx-rule-1","content":"deep","protocol_recovery":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`,
  );

export interface Rule {
  rule: string;
  refused: EventToWrite;
  valid: EventToWrite;
  /** What Reasonix says after `invalid <kind> payload at <seq>` (nothing when it names no cause). */
  cause?: string;
  /** A refusal that is not `damaged session store: invalid … payload`: Reasonix's whole line. */
  line?: string;
}

export const UNSUPPORTED =
  'error: unsupported session storage version: unsupported preview codec "reasonix.session.linear/v4"';

export const rules: Rule[] = [
  {
    rule: 'a message/complete names a message',
    refused: raw('message/complete', '{"message":null}'),
    valid: message({}),
  },
  { rule: 'a message/complete message has an id', refused: message({ id: '' }), valid: message({}) },
  {
    rule: 'a message/complete id is not already in the log',
    refused: message({ id: TAKEN_ID }),
    valid: message({}),
    cause: 'duplicate stable message id "%TAKEN%"',
  },
  {
    rule: 'a message has no key Reasonix does not know',
    refused: message({ host_authored: true }),
    valid: message({ origin: 'user' }),
    cause: 'json: unknown field "host_authored"',
  },
  {
    rule: 'a message createdAt is a whole number',
    refused: message({ createdAt: '1767323045123' }),
    valid: message({ createdAt: 1767323045123 }),
    cause: 'json: cannot unmarshal string into Go struct field Message.message.createdAt of type int64',
  },
  {
    rule: 'a message reasoning_state is a string',
    refused: message({ reasoning_state: {} }),
    valid: message({ reasoning_state: 'done' }),
    cause:
      'json: cannot unmarshal object into Go struct field Message.message.reasoning_state of type provider.ReasoningState',
  },
  {
    rule: 'a tool_execution has only its own fields',
    refused: message({ role: 'tool', tool_execution: { exitCode: 0, bogus: 1 } }),
    valid: message({ role: 'tool', tool_execution: { exitCode: 0, state: 'completed' } }),
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a decision_receipt has only its own fields',
    refused: message({ decision_receipt: { id: 'r', kind: 'k', outcome: 'o', bogus: 1 } }),
    valid: message({ decision_receipt: { id: 'r', kind: 'k', tool: 't', subject: 's', outcome: 'o' } }),
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a memory citation has only its own fields',
    refused: message({ memoryCitations: [{ source: 's', bogus: 1 }] }),
    valid: message({ memoryCitations: [{ id: 'm', source: 's', lineStart: 1, lineEnd: 2, note: 'n', kind: 'k' }] }),
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a vision_summary has only its own fields',
    refused: message({ vision_summary: { summary: 's', bogus: 1 } }),
    valid: message({
      vision_summary: {
        version: 1,
        prompt_version: 'p',
        model_ref: 'm',
        image_digests: ['d'],
        summary: 's',
        created_at: 1,
      },
    }),
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a message/upsert message has an id',
    refused: { kind: 'message/upsert', payload: { message: { role: 'user', content: 'x' } } },
    valid: { kind: 'message/upsert', payload: { message: { role: 'user', id: 'rx-rule-1', content: 'x' } } },
  },
  {
    rule: 'a message/retract names at least one id',
    refused: { kind: 'message/retract', payload: { messageIds: [] } },
    valid: { kind: 'message/retract', payload: { messageIds: ['absent'] } },
    cause: 'empty messageIds',
  },
  {
    rule: 'message/retract ids are trimmed and unique',
    refused: { kind: 'message/retract', payload: { messageIds: [' a', 'a'] } },
    valid: { kind: 'message/retract', payload: { messageIds: ['a', 'b'] } },
    cause: 'invalid or duplicate message id',
  },
  {
    rule: 'a history/replace sourceSequence has no minus sign, -0 included',
    refused: raw('history/replace', '{"messages":[],"sourceSequences":[-0]}'),
    valid: raw('history/replace', '{"messages":[],"sourceSequences":[0]}'),
    cause: 'json: cannot unmarshal number -0 into Go struct field historyReplacePayload.sourceSequences of type uint64',
  },
  {
    rule: 'a history/replace has messages',
    refused: { kind: 'history/replace', payload: { reason: 'r' } },
    valid: { kind: 'history/replace', payload: { messages: [], reason: 'r' } },
  },
  {
    rule: 'history/replace sourceSequences are not negative',
    refused: { kind: 'history/replace', payload: { messages: [], sourceSequences: [-1] } },
    valid: { kind: 'history/replace', payload: { messages: [], sourceSequences: [1] } },
    cause: 'json: cannot unmarshal number -1 into Go struct field historyReplacePayload.sourceSequences of type uint64',
  },
  {
    rule: 'a model/context-replace has messages',
    refused: { kind: 'model/context-replace', payload: {} },
    valid: { kind: 'model/context-replace', payload: { messages: [] } },
  },
  {
    rule: 'a compaction has messages',
    refused: { kind: 'compaction', payload: { trigger: 'auto' } },
    valid: { kind: 'compaction', payload: { messages: [], trigger: 'auto' } },
  },
  {
    rule: 'a legacy/import has messages',
    refused: { kind: 'legacy/import', payload: { source: { path: 'x' } } },
    valid: {
      kind: 'legacy/import',
      payload: { source: { path: 'x' }, messages: [{ role: 'system', id: 'rx-rule-1', content: 's' }] },
    },
  },
  {
    rule: 'a legacy/import source has only its own fields',
    refused: { kind: 'legacy/import', payload: { source: { bogus: 1 }, messages: [] } },
    valid: {
      kind: 'legacy/import',
      payload: {
        source: { path: 'x', size: 1, sha256: 'a' },
        messages: [{ role: 'system', id: 'rx-rule-1', content: 's' }],
      },
    },
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a payload nests at most 10,000 levels deep',
    refused: nested(10_001),
    valid: nested(10_000),
    cause: "invalid character '[' exceeded max depth",
  },
  {
    rule: 'a decoded payload is not empty',
    refused: { kind: 'session/title' },
    valid: raw('session/title', '{"title":"x"}'),
    cause: 'unexpected EOF',
  },
  {
    rule: 'nothing follows the payload',
    refused: raw('session/title', '{"title":"x"} {}'),
    valid: raw('session/title', '{"title":"x"} '),
    cause: 'multiple JSON values',
  },
  {
    rule: 'a session/title is a string',
    refused: raw('session/title', '{"title":1}'),
    valid: raw('session/title', '{"title":"1"}'),
    cause: 'json: cannot unmarshal number into Go struct field .title of type string',
  },
  {
    rule: 'a known kind is decoded even when optional',
    refused: raw('session/title', '{"title":1}', { optional: true }),
    valid: raw('session/title', '{"title":"1"}', { optional: true }),
    cause: 'json: cannot unmarshal number into Go struct field .title of type string',
  },
  {
    rule: 'a session/config modelRef is not blank',
    refused: { kind: 'session/config', payload: { modelRef: '  ' } },
    valid: { kind: 'session/config', payload: { modelRef: 'mock/mock-model' } },
  },
  {
    rule: 'a turn/end status is completed, failed or interrupted',
    refused: { kind: 'turn/end', payload: { status: 'cancelled' } },
    valid: { kind: 'turn/end', payload: { status: 'interrupted' } },
  },
  {
    rule: 'an assistant/attempt action is begin, discard or commit',
    refused: { kind: 'assistant/attempt', payload: { id: 'a', action: 'retry' } },
    valid: { kind: 'assistant/attempt', payload: { id: 'a', action: 'discard' } },
  },
  {
    rule: 'an assistant/attempt has an id',
    refused: { kind: 'assistant/attempt', payload: { action: 'begin' } },
    valid: { kind: 'assistant/attempt', payload: { id: 'a', action: 'begin' } },
  },
  {
    rule: 'a step/start has an id',
    refused: { kind: 'step/start', payload: { status: 'running' } },
    valid: { kind: 'step/start', payload: { id: 's', status: 'running' } },
  },
  {
    rule: 'a tool/call has a name',
    refused: { kind: 'tool/call', payload: { id: 't' } },
    valid: { kind: 'tool/call', payload: { id: 't', name: 'bash', args: '{}' } },
  },
  {
    rule: 'a tool/call has only its own fields',
    refused: { kind: 'tool/call', payload: { id: 't', name: 'bash', bogus: 1 } },
    valid: { kind: 'tool/call', payload: { id: 't', name: 'bash', workspacePaths: ['a'] } },
    cause: 'json: unknown field "bogus"',
  },
  {
    rule: 'a tool/start has only an id and a name',
    refused: { kind: 'tool/start', payload: { id: 't', name: 'bash', args: '{}' } },
    valid: { kind: 'tool/start', payload: { id: 't', name: 'bash' } },
    cause: 'json: unknown field "args"',
  },
  {
    rule: 'a tool/result has a name',
    refused: { kind: 'tool/result', payload: { id: 't', output: 'x' } },
    valid: { kind: 'tool/result', payload: { id: 't', name: 'bash', output: 'x', state: 'done' } },
  },
  {
    rule: 'a todo/write has todos',
    refused: { kind: 'todo/write', payload: {} },
    valid: { kind: 'todo/write', payload: { todos: [] } },
  },
  {
    rule: 'a todo/write todos is not null',
    refused: raw('todo/write', '{"todos":null}'),
    valid: raw('todo/write', '{"todos":[]}'),
  },
  {
    rule: 'a todo is not null',
    refused: raw('todo/write', '{"todos":[null]}'),
    valid: raw('todo/write', '{"todos":[{"content":"a","status":"pending"}]}'),
  },
  {
    rule: 'a history/replace messages is not null',
    refused: raw('history/replace', '{"messages":null}'),
    valid: raw('history/replace', '{"messages":[]}'),
  },
  {
    rule: 'a todo status is pending, in_progress or completed',
    refused: { kind: 'todo/write', payload: { todos: [{ content: 'a', status: 'done' }] } },
    valid: { kind: 'todo/write', payload: { todos: [{ content: 'a', status: 'in_progress' }] } },
  },
  {
    rule: 'todo contents are trimmed and unique',
    refused: {
      kind: 'todo/write',
      payload: {
        todos: [
          { content: 'a', status: 'pending' },
          { content: 'a', status: 'completed' },
        ],
      },
    },
    valid: {
      kind: 'todo/write',
      payload: {
        todos: [
          { content: 'a', status: 'pending' },
          { content: 'b', status: 'completed' },
        ],
      },
    },
  },
  {
    rule: 'a todo has only content and status',
    refused: { kind: 'todo/write', payload: { todos: [{ content: 'a', status: 'pending', activeForm: 'x' }] } },
    valid: { kind: 'todo/write', payload: { todos: [{ content: 'a', status: 'pending' }] } },
    cause: 'json: unknown field "activeForm"',
  },
  {
    rule: 'an interaction/created state is pending',
    refused: { kind: 'interaction/created', payload: { id: 'i', state: 'answered' } },
    valid: { kind: 'interaction/created', payload: { id: 'i', state: 'pending' } },
  },
  {
    rule: 'an interaction/resolved state is final',
    refused: { kind: 'interaction/resolved', payload: { id: 'i', state: 'pending' } },
    valid: { kind: 'interaction/resolved', payload: { id: 'i', state: 'rejected' } },
  },
  { rule: 'a plan/state is a JSON object', refused: raw('plan/state', '[]'), valid: raw('plan/state', '{}') },
  {
    rule: 'a goal/state is a JSON object',
    refused: raw('goal/state', 'null'),
    valid: raw('goal/state', '{"objective":"x"}'),
  },
  { rule: 'a diagnostic is JSON, or nothing', refused: raw('diagnostic', '{not json'), valid: { kind: 'diagnostic' } },
  {
    rule: 'a kind Reasonix does not know is optional',
    refused: { kind: 'future/thing', payload: {} },
    valid: { kind: 'future/thing', optional: true, payload: {} },
    line: UNSUPPORTED,
  },
  {
    rule: 'session/permission-preset is not a kind 1.38.11 knows',
    refused: { kind: 'session/permission-preset', payload: { preset: 'read-only' } },
    valid: { kind: 'session/permission-preset', optional: true, payload: { preset: 'read-only' } },
    line: UNSUPPORTED,
  },
  {
    rule: 'a kind is matched exactly, spaces included',
    refused: { kind: ' session/title', payload: { title: 'x' } },
    valid: { kind: 'session/title', payload: { title: 'x' } },
    line: UNSUPPORTED,
  },
  {
    rule: 'a message createdAt is written as a whole number',
    refused: raw('message/complete', '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":1.0}}'),
    valid: raw('message/complete', '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":1}}'),
    cause: 'json: cannot unmarshal number 1.0 into Go struct field Message.message.createdAt of type int64',
  },
  {
    rule: 'a tool_execution exitCode is written as a whole number',
    refused: raw(
      'message/complete',
      '{"message":{"role":"tool","id":"rx-rule-1","content":"x","tool_execution":{"state":"completed","exitCode":0.0}}}',
    ),
    valid: raw(
      'message/complete',
      '{"message":{"role":"tool","id":"rx-rule-1","content":"x","tool_execution":{"state":"completed","exitCode":0}}}',
    ),
    cause:
      'json: cannot unmarshal number 0.0 into Go struct field ToolExecution.message.tool_execution.exitCode of type int',
  },
  {
    rule: 'a history/replace sourceSequence is written as a whole number',
    refused: raw('history/replace', '{"messages":[],"sourceSequences":[1,2e0]}'),
    valid: raw('history/replace', '{"messages":[],"sourceSequences":[1,2]}'),
    cause:
      'json: cannot unmarshal number 2e0 into Go struct field historyReplacePayload.sourceSequences of type uint64',
  },
  {
    rule: 'a replaced history message createdAt is written as a whole number',
    refused: raw('history/replace', '{"messages":[{"role":"system","id":"rx-rule-1","content":"s","createdAt":5E0}]}'),
    valid: raw('history/replace', '{"messages":[{"role":"system","id":"rx-rule-1","content":"s","createdAt":5}]}'),
    cause: 'json: cannot unmarshal number 5E0 into Go struct field Message.messages.createdAt of type int64',
  },
  {
    rule: 'a message createdAt is within int64',
    refused: raw(
      'message/complete',
      '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":9223372036854775808}}',
    ),
    valid: raw(
      'message/complete',
      '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":9223372036854775807}}',
    ),
    cause:
      'json: cannot unmarshal number 9223372036854775808 into Go struct field Message.message.createdAt of type int64',
  },
  {
    rule: 'a tool/result durationMs is written as a whole number',
    refused: raw('tool/result', '{"id":"t","name":"bash","output":"x","durationMs":5.00}'),
    valid: raw('tool/result', '{"id":"t","name":"bash","output":"x","durationMs":5}'),
    cause: 'json: cannot unmarshal number 5.00 into Go struct field .durationMs of type int64',
  },
  {
    rule: 'an assistant/attempt attempt is written as a whole number',
    refused: raw('assistant/attempt', '{"id":"a","action":"begin","attempt":1e0}'),
    valid: raw('assistant/attempt', '{"id":"a","action":"begin","attempt":1}'),
    cause: 'json: cannot unmarshal number 1e0 into Go struct field .attempt of type int',
  },
  {
    rule: 'a submission/accepted fingerprintVersion is written as a whole number',
    refused: raw('submission/accepted', '{"fingerprintVersion":1.0,"sessionId":"s"}', { optional: true }),
    valid: raw('future/receipt', '{"fingerprintVersion":1.0,"sessionId":"s"}', { optional: true }),
    line: 'error: json: cannot unmarshal number 1.0 into Go struct field SubmissionReceipt.fingerprintVersion of type int',
  },
  {
    rule: 'a submission/accepted receipt is JSON, even when optional',
    refused: raw('submission/accepted', '{x', { optional: true }),
    valid: raw('future/receipt', '{x', { optional: true }),
    line: "error: invalid character 'x' looking for beginning of object key string",
  },
];

/** What Reasonix opens although a strict reading would not: each was refused by rxstore before. */
export const accepted: { rule: string; event: EventToWrite }[] = [
  {
    rule: 'keys match fields case-insensitively',
    event: raw('message/complete', '{"Message":{"ROLE":"user","Id":"rx-rule-1","content":"x"}}'),
  },
  { rule: 'a null payload is the zero value', event: raw('session/title', 'null') },
  { rule: 'a null field is the zero value', event: raw('session/title', '{"title":null}') },
  {
    rule: 'a null leaves a string field as an earlier key set it',
    event: raw('message/complete', '{"message":{"role":"user","id":"rx-rule-1","ID":null,"content":"x"}}'),
  },
  {
    rule: 'a message needs no role',
    event: { kind: 'message/complete', payload: { message: { id: 'rx-rule-1', content: 'x' } } },
  },
  { rule: 'an id of spaces is an id', event: message({ id: ' ' }) },
  {
    rule: 'a whole number past 2^53 is an int64',
    event: raw(
      'message/complete',
      '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":9007199254740993}}',
    ),
  },
  {
    rule: "int64's largest is an int64",
    event: raw(
      'message/complete',
      '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":9223372036854775807}}',
    ),
  },
  {
    rule: 'an int64 may be -0',
    event: raw('message/complete', '{"message":{"role":"user","id":"rx-rule-1","content":"x","createdAt":-0}}'),
  },
  {
    rule: 'a tool call needs no id in the store',
    event: message({ role: 'assistant', tool_calls: [{ name: 'bash', arguments: '{}' }] }),
  },
  { rule: 'a turn/start payload is not read', event: raw('turn/start', '{not json') },
  { rule: 'an optional unknown kind is not read', event: raw('future/thing', '{not json', { optional: true }) },
  {
    rule: 'ids repeated inside history/replace are kept once',
    event: {
      kind: 'history/replace',
      payload: {
        messages: [
          { role: 'system', id: 'a', content: 's' },
          { role: 'user', id: 'a', content: 'u' },
        ],
      },
    },
  },
  {
    rule: 'a number written with a fraction in a field of any JSON, a list of them or a string',
    event: raw(
      'message/complete',
      '{"message":{"role":"user","id":"rx-rule-1","content":"x, 1.5 [2.0]","protocol_recovery":{"n":1.0,"l":[2e0]}}}',
    ),
  },
  {
    rule: 'message/retract needs no required flag',
    event: { kind: 'message/retract', payload: { messageIds: ['absent'] } },
  },
];
