// The list of messages the model is sent, as the replay keeps it: which tool calls it holds a result for
// (a second result is what Reasonix refuses), through every way the list is rewritten — a message put in
// another's place, one taken out, the whole list replaced — and which messages answer a call at all.
import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/compact/string-table.js';
import { answeredCall, type Message } from '../../../src/session/replay/message.js';
import { ModelList } from '../../../src/session/replay/model-list.js';
import { toolResult as result } from '../../support/sessions/messages.js';

const list = (keep = true) => new ModelList(new StringTable(), new StringTable(), keep);
const said = (id: string | undefined, content = 'hi'): Message => ({
  role: 'user',
  ...(id === undefined ? {} : { id }),
  content,
});
const answered = (model: ModelList, calls: string[]) => calls.filter((call) => model.hasResultFor(call));

describe('answeredCall', () => {
  it('is the call id of a tool message that the model is sent, and nothing else', () => {
    expect(answeredCall({ role: 'tool', tool_call_id: 'c1' })).toBe('c1');
    expect(answeredCall({ role: 'tool', tool_call_id: 'c1', local_only: true })).toBeUndefined();
    expect(answeredCall({ role: 'tool', tool_call_id: '' })).toBeUndefined();
    expect(answeredCall({ role: 'tool' })).toBeUndefined();
    expect(answeredCall({ role: 'assistant', tool_call_id: 'c1' })).toBeUndefined();
    expect(answeredCall({ role: 'user', tool_call_id: 'c1', local_only: false })).toBeUndefined();
  });
});

describe('ModelList', () => {
  it('holds a result for each call a tool message answers, asked before and after each push', () => {
    const model = list();
    expect(answered(model, ['c1'])).toEqual([]);
    model.push(said('m1'));
    model.push(result('m2', 'c1'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c1']);
    // Pushed after the answers were looked at: seen without a rebuild.
    model.push(result('m3', 'c2'));
    model.push(result('m4', 'c3', { local_only: true }));
    expect(answered(model, ['c1', 'c2', 'c3', 'c4'])).toEqual(['c1', 'c2']);
    expect(model.messages.map((message) => message.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('a message put in the place of one with its id: the old one answers nothing any more, the new one does', () => {
    const model = list();
    model.push(said('m1'));
    model.push(result('m2', 'c1'));
    model.push(said('m3'));
    expect(answered(model, ['c1'])).toEqual(['c1']);
    model.upsert(result('m2', 'c2'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c2']);
    expect(model.messages.map((message) => [message.id, message.tool_call_id])).toEqual([
      ['m1', undefined],
      ['m2', 'c2'],
      ['m3', undefined],
    ]);
    // No message has its id: it comes last.
    model.upsert(result('m9', 'c3'));
    expect(model.messages.map((message) => message.id)).toEqual(['m1', 'm2', 'm3', 'm9']);
    expect(answered(model, ['c1', 'c2', 'c3'])).toEqual(['c2', 'c3']);
    // Without an id, a message is never taken for another without one.
    model.upsert(said(undefined, 'first'));
    model.upsert(said(undefined, 'second'));
    expect(model.messages.map((message) => message.content)).toEqual(['hi', 'ok', 'hi', 'ok', 'first', 'second']);
  });

  it('a local-only message put in its place takes the message with its id out of the list', () => {
    const model = list();
    model.push(said('m1'));
    model.push(result('m2', 'c1'));
    model.push(said('m3'));
    expect(answered(model, ['c1'])).toEqual(['c1']);
    model.upsert(result('m2', 'c1', { local_only: true }));
    expect(model.messages.map((message) => message.id)).toEqual(['m1', 'm3']);
    expect(answered(model, ['c1'])).toEqual([]);
    // One with an id no message has is not added.
    model.upsert({ ...said('m7', 'aside'), local_only: true });
    expect(model.messages.map((message) => message.id)).toEqual(['m1', 'm3']);
  });

  it('taking messages out by id ("" for those without one) leaves the others in order, and their answers', () => {
    const model = list();
    model.push(said('m1'));
    model.push(result('m2', 'c1'));
    model.push(said(undefined, 'no id'));
    model.push(result('m4', 'c2'));
    model.push(said('m5'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c1', 'c2']);
    model.retract(['m2']);
    expect(model.messages.map((message) => message.id ?? message.content)).toEqual(['m1', 'no id', 'm4', 'm5']);
    expect(answered(model, ['c1', 'c2'])).toEqual(['c2']);
    model.retract(['']);
    expect(model.messages.map((message) => message.id ?? message.content)).toEqual(['m1', 'm4', 'm5']);
    model.retract(['m1', 'unknown']);
    expect(model.messages.map((message) => message.id)).toEqual(['m4', 'm5']);
    expect(answered(model, ['c2'])).toEqual(['c2']);
    // A tool result put back after the answers were rebuilt is seen.
    model.push(result('m6', 'c1'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c1', 'c2']);
  });

  it('the whole list replaced: only the new messages answer calls', () => {
    const model = list();
    model.push(result('m1', 'c1'));
    expect(answered(model, ['c1'])).toEqual(['c1']);
    model.replace([said('n1'), result('n2', 'c2'), result('n3', 'c3')]);
    expect(answered(model, ['c1', 'c2', 'c3'])).toEqual(['c2', 'c3']);
    expect(model.messages.map((message) => message.id)).toEqual(['n1', 'n2', 'n3']);
    // Replaced, then pushed to before any answer was asked for.
    model.replace([said('p1')]);
    model.push(result('p2', 'c1'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c1']);
  });

  it('a list that keeps only the index still answers, and says it kept no messages', () => {
    const model = list(false);
    model.push(result('m1', 'c1'));
    model.retract(['m1']);
    model.push(result('m2', 'c2'));
    expect(answered(model, ['c1', 'c2'])).toEqual(['c2']);
    expect(() => model.messages).toThrow(/kept only an index of the messages/);
  });
});
