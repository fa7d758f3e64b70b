import type { EventToWrite } from '../../../src/codec/encode-batch.js';

/**
 * Sessions Reasonix 1.38.11 opens, each with what it says when asked for a new turn in it: nothing
 * (the turn is taken) or its transcript gate's refusal (internal/provider/transcript_gate.go,
 * after the repairs of the request's copy in provider.go). Each case is messages appended to a
 * session whose model view is a system message, then plain turns (`base` messages in all); the
 * message index Reasonix names counts the system message as 0. test/reasonix/writes/new-turn-matches-reasonix
 * lets the real binary judge every one.
 */
export interface NewTurnCase {
  case: string;
  /** Messages appended, each in a `message/complete`; or, with `replace`, the model's whole list. */
  messages: Record<string, unknown>[];
  /** The messages are a `model/context-replace`'s: the model is sent them alone. */
  replace?: boolean;
  /** What Reasonix says, after `error: `, with `%N` the index of the appended message (counted from `base`); nothing when it takes the turn. */
  refused?: string;
}

let next = 0;
const id = () => `rx-gate-${(next += 1)}`;
export const assistant = (calls: Record<string, unknown>[], fields: Record<string, unknown> = {}) => ({
  role: 'assistant',
  id: id(),
  content: '',
  tool_calls: calls,
  ...fields,
});
export const result = (callId: string | undefined, name: string | undefined, fields: Record<string, unknown> = {}) => ({
  role: 'tool',
  id: id(),
  content: 'done',
  ...(callId !== undefined ? { tool_call_id: callId } : {}),
  ...(name !== undefined ? { name } : {}),
  ...fields,
});
export const call = (args: string, fields: Record<string, unknown> = {}) => ({
  id: 'call_gate',
  name: 'bash',
  arguments: args,
  ...fields,
});
const answered = (args: string) => [assistant([call(args)]), result('call_gate', 'bash')];

/** The arguments a call may not have: anything but a JSON object. */
const notObjects: [string, string][] = [
  ['an array', '[]'],
  ['a number', '1'],
  ['a string', '"ls"'],
  ['null', 'null'],
  ['a boolean', 'true'],
  ['empty', ''],
  ['blank', ' \n'],
  ['truncated', '{"command":"ls'],
  ['an object with text after it', '{"command":"ls"} x'],
  ['two objects', '{}{}'],
];

export const newTurnCases: NewTurnCase[] = [
  ...notObjects.map(
    ([what, args]): NewTurnCase => ({
      case: `arguments that are ${what}`,
      messages: answered(args),
      refused: 'transcript gate: tool arguments must be a JSON object at message %0',
    }),
  ),
  { case: 'arguments {}', messages: answered('{}') },
  { case: 'an object with spaces around it', messages: answered(' {"command":"ls"}\n') },
  { case: 'an object with a key twice', messages: answered('{"a":1,"a":2}') },
  {
    case: 'an empty name, named by its result',
    messages: [assistant([call('{}', { name: '' })]), result('call_gate', 'bash')],
  },
  {
    case: 'an empty name its result does not name',
    messages: [assistant([call('{}', { name: '' })]), result('call_gate', undefined)],
    refused: 'transcript gate: invalid tool identity at message %0',
  },
  {
    case: 'an empty name without a result',
    messages: [assistant([call('{}', { name: '' })])],
    refused: 'transcript gate: invalid tool identity at message %0',
  },
  {
    case: 'a blank name, although its result names it',
    messages: [assistant([call('{}', { name: ' ' })]), result('call_gate', 'bash')],
    refused: 'transcript gate: invalid tool identity at message %0',
  },
  {
    case: 'an empty call id and a result without one',
    messages: [assistant([call('{}', { id: '' })]), result(undefined, 'bash')],
  },
  { case: 'an empty call id and no result', messages: [assistant([call('{}', { id: '' })])] },
  {
    case: 'a blank call id',
    messages: [assistant([call('{}', { id: ' ' })]), result(' ', 'bash')],
    refused: 'transcript gate: invalid tool identity at message %0',
  },
  {
    case: 'tool calls on a user message',
    messages: [{ role: 'user', id: id(), content: 'hi', tool_calls: [call('{}')] }],
    refused: 'transcript gate: invalid tool identity at message %0',
  },
  { case: 'a call without its result', messages: [assistant([call('{}')])] },
  {
    case: 'a result named otherwise than its call',
    messages: [assistant([call('{}')]), result('call_gate', 'read_file')],
  },
  {
    case: 'a result without its call',
    messages: [{ role: 'user', id: id(), content: 'hi' }, result('call_elsewhere', 'bash')],
  },
  {
    case: "the v0.x migration's call: empty name, empty arguments",
    messages: [assistant([call('', { name: '' })]), result('call_gate', undefined)],
    refused: 'transcript gate: tool arguments must be a JSON object at message %0',
  },
  {
    case: 'a bad call after good ones: named at its own message',
    messages: [
      ...answered('{}').map((message) => ({ ...message, id: id() })),
      assistant([call('[]', { id: 'call_two' })]),
      result('call_two', 'bash'),
    ],
    refused: 'transcript gate: tool arguments must be a JSON object at message %2',
  },
  {
    case: 'inside a model/context-replace: arguments that are not an object',
    replace: true,
    messages: [
      { role: 'system', id: id(), content: 'You are helpful.' },
      { role: 'user', id: id(), content: 'hi' },
      assistant([call('"ls"')]),
      result('call_gate', 'bash'),
    ],
    refused: 'transcript gate: tool arguments must be a JSON object at message 2',
  },
  {
    case: 'inside a model/context-replace: one call id twice in a message',
    replace: true,
    messages: [
      { role: 'system', id: id(), content: 'You are helpful.' },
      { role: 'user', id: id(), content: 'hi' },
      assistant([call('{}'), call('{}')]),
      result('call_gate', 'bash'),
      result('call_gate', 'bash'),
    ],
    refused: 'transcript gate: duplicate call ID at message 2',
  },
  {
    case: 'inside a model/context-replace: tool calls on a user message',
    replace: true,
    messages: [
      { role: 'system', id: id(), content: 'You are helpful.' },
      { role: 'user', id: id(), content: 'hi', tool_calls: [call('{}')] },
    ],
    refused: 'transcript gate: invalid tool identity at message 1',
  },
  {
    case: 'inside a model/context-replace: good calls',
    replace: true,
    messages: [
      { role: 'system', id: id(), content: 'You are helpful.' },
      { role: 'user', id: id(), content: 'hi' },
      assistant([call('{}'), call('{}', { id: 'call_two' })]),
      result('call_two', 'bash'),
      result('call_gate', 'bash'),
    ],
  },
];

/** The events that append a case. */
export function eventsOf(each: NewTurnCase): EventToWrite[] {
  if (each.replace) return [{ kind: 'model/context-replace', payload: { messages: each.messages, reason: 'rx-gate' } }];
  return each.messages.map((message) => ({ kind: 'message/complete', payload: { message } }));
}
