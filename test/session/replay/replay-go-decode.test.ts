import { describe, expect, it } from 'vitest';
import { decodePayload } from '../../../src/session/replay/payloads.js';

/** Reasonix 1.38.11's verdict on one payload, given as the JSON text the log holds. */
const verdict = (kind: string, json: string) => decodePayload(kind, Buffer.from(json));

describe("payload keys and nulls, decoded as Go decodes them into Reasonix's structs", () => {
  it("match a field exactly, else case-insensitively with Go's folds (ſ as s, the Kelvin sign as k), the last key winning", () => {
    expect(verdict('session/title', '{"TITLE":"upper"}')).toEqual({ state: 'ok', value: { title: 'upper' } });
    expect(verdict('turn/end', '{"\u017ftatus":"completed"}')).toEqual({ state: 'ok', value: { status: 'completed' } });
    expect(verdict('tool/call', '{"id":"t","name":"bash","wor\u212aspaceMutation":true}')).toEqual({
      state: 'ok',
      value: { id: 't', name: 'bash', workspaceMutation: true },
    });
    expect(verdict('session/title', '{"Title":"first","title":"second"}')).toEqual({
      state: 'ok',
      value: { title: 'second' },
    });
    expect(verdict('session/title', '{"title":"first","Title":"second"}')).toEqual({
      state: 'ok',
      value: { title: 'second' },
    });
    expect(verdict('session/config', '{"modelRef":"a/b","MODELIDENTITY":"id"}')).toEqual({
      state: 'ok',
      value: { modelRef: 'a/b', modelIdentity: 'id' },
    });
    // A key that folds to no field is refused by name, wherever it comes.
    expect(verdict('session/title', '{"Title":"x","titles":"y"}')).toEqual({
      state: 'refused',
      reason: 'unknown field "titles"',
      damaged: true,
    });
    expect(verdict('session/title', '{"titlé":"x"}')).toEqual({
      state: 'refused',
      reason: 'unknown field "titlé"',
      damaged: true,
    });
    // The dotless ı upper-cases to I, but Go's folds do not take it for i.
    expect(verdict('session/title', '{"t\u0131tle":"x"}')).toEqual({
      state: 'refused',
      reason: 'unknown field "t\u0131tle"',
      damaged: true,
    });
    // Where Reasonix decodes leniently (a submission receipt) an unknown key is dropped.
    expect(verdict('submission/accepted', '{"turnId":"t","anything":1}')).toEqual({
      state: 'ok',
      value: { turnId: 't' },
    });
  });

  it('treat null as Go does: a null payload is the zero struct, a null pointer or slice is nil, a null string leaves the field as it was', () => {
    expect(verdict('session/title', 'null')).toEqual({ state: 'ok', value: {} });
    expect(verdict('session/title', '{"title":null}')).toEqual({ state: 'ok', value: {} });
    expect(verdict('session/title', '{"title":"kept","TITLE":null}')).toEqual({
      state: 'ok',
      value: { title: 'kept' },
    });
    expect(verdict('session/config', '{"modelRef":"a/b","MODELREF":null}')).toEqual({
      state: 'ok',
      value: { modelRef: 'a/b' },
    });
    // The real Reasonix opens such a message: its id stays.
    expect(verdict('message/complete', '{"message":{"role":"user","id":"m-1","ID":null,"content":"x"}}')).toEqual({
      state: 'ok',
      value: { message: { role: 'user', id: 'm-1', content: 'x' } },
    });
    expect(verdict('message/complete', '{"message":{"role":"user","id":"m-1"},"MESSAGE":null}')).toEqual({
      state: 'refused',
      reason: 'the message is missing or has no id',
      damaged: true,
    });
    expect(verdict('history/replace', '{"messages":[],"Messages":null}')).toEqual({
      state: 'refused',
      reason: 'messages is missing',
      damaged: true,
    });
    expect(verdict('history/replace', '{"reason":"r","messages":[]}')).toEqual({
      state: 'ok',
      value: { reason: 'r', messages: [] },
    });
    // A struct is an object: an array or a string is refused.
    expect(verdict('session/title', '["x"]').state).toBe('refused');
    expect(verdict('session/title', '"x"').state).toBe('refused');
    // Even where unknown keys are dropped, a string or an array is not an object whose keys are dropped.
    expect(verdict('runtime/recovery', '"xy"').state).toBe('refused');
    expect(verdict('runtime/recovery', '[1]').state).toBe('refused');
    expect(verdict('session/title', '{"title":1}')).toMatchObject({ state: 'refused', damaged: true });
  });

  it("read a null element of a list as its type's zero value, as Go grows a slice (judged in go-zero-values-match-reasonix)", () => {
    expect(verdict('history/replace', '{"messages":[null,{"role":"user","id":"a","content":"x"}]}')).toEqual({
      state: 'ok',
      value: { messages: [{}, { role: 'user', id: 'a', content: 'x' }] },
    });
    expect(
      verdict('message/complete', '{"message":{"id":"m","tool_calls":[null],"images":[null],"image_inputs":[null]}}'),
    ).toEqual({
      state: 'ok',
      value: { message: { id: 'm', tool_calls: [{}], images: [''], image_inputs: [{}] } },
    });
    expect(verdict('history/replace', '{"messages":[],"sourceSequences":[null,2]}')).toEqual({
      state: 'ok',
      value: { messages: [], sourceSequences: [0, 2] },
    });
    expect(verdict('tool/call', '{"id":"t","name":"bash","workspacePaths":[null],"presentedFiles":[null]}')).toEqual({
      state: 'ok',
      value: { id: 't', name: 'bash', workspacePaths: [''], presentedFiles: [{}] },
    });
    expect(verdict('tool/result', '{"id":"t","name":"bash","todos":[null]}')).toEqual({
      state: 'ok',
      value: { id: 't', name: 'bash', todos: [{}] },
    });
    expect(
      verdict('message/complete', '{"message":{"id":"m","tool_calls":[{"id":"c","write_intents":[null]}]}}'),
    ).toEqual({
      state: 'ok',
      value: { message: { id: 'm', tool_calls: [{ id: 'c', write_intents: [null] }] } },
    });
    // A zero element is still judged: a null todo has no content, and a null id is an empty one.
    expect(verdict('todo/write', '{"todos":[null]}')).toEqual({
      state: 'refused',
      reason: 'todos[0].content is invalid',
      damaged: true,
    });
    expect(verdict('message/retract', '{"messageIds":["a",null]}')).toEqual({
      state: 'refused',
      reason: 'invalid or duplicate message id',
      damaged: true,
    });
  });
});
