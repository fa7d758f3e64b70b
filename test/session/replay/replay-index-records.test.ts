import { describe, expect, it } from 'vitest';
import { type IndexRecord, type Message, type TimedMessage } from '../../../src/index.js';
import { indexRecords } from '../../../src/session/replay/index-records.js';

const context = { sessionId: 'session-1', workspace: '/w', title: 'A title' };
const TIME = Date.parse('2026-03-04T05:06:07.089Z');

/** A transcript of messages, each stamped one second after the one before. */
const timed = (...messages: Message[]): TimedMessage[] =>
  messages.map((message, at) => ({ message, time: TIME + at * 1000, seq: at + 1 }));
const call = (id: string, name: string, args: unknown, extra: Partial<Message> = {}): Message => ({
  role: 'assistant',
  id: `m-${id}`,
  content: '',
  tool_calls: [{ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
  ...extra,
});
const result = (id: string, content: string, extra: Partial<Message> = {}): Message => ({
  role: 'tool',
  id: `m-r-${id}`,
  tool_call_id: id,
  content,
  ...extra,
});
/**
 * The records without what every record has, nor the arguments a file tool's or a command's carries as they
 * are, nor a file tool's output.
 */
function only(messages: Message[]): Record<string, unknown>[] {
  return indexRecords(timed(...messages), context).map(
    ({ sessionId, workspace, title, time, messageId, key, ...rest }) => {
      const {
        callId: _callId,
        resultMessageId: _resultMessageId,
        resultTime: _resultTime,
        ...fields
      } = rest as typeof rest & { callId?: string; resultMessageId?: string; resultTime?: string };
      if (fields.type === 'command') {
        const { arguments: _arguments, ...command } = fields;
        return command;
      }
      if (fields.type !== 'file') return fields;
      const { arguments: _arguments, output: _output, ...file } = fields;
      return file;
    },
  );
}

describe('index records', () => {
  it('index what a person typed and what the assistant answered, with the session, time and message id, and nothing of the host or local-only records', () => {
    const records = indexRecords(
      timed(
        { role: 'system', id: 'm-s', content: 'You are Reasonix.' },
        {
          role: 'user',
          id: 'm-h',
          origin: 'host',
          content: '<session-context>Current workspace: "/w"</session-context>',
        },
        { role: 'user', id: 'm-u', content: 'Expanded prompt the model saw', raw_content: 'what I typed' },
        { role: 'assistant', content: 'An answer without an id' },
        { role: 'assistant', id: 'm-blank', content: '  \n ' },
        { role: 'assistant', id: 'm-local', content: 'kept locally', local_only: true },
        { role: 'user', id: 'm-plain', content: 'typed, no raw content', raw_content: '' },
      ),
      context,
    );
    expect(records).toEqual([
      {
        key: 'session-1/m/m-u',
        sessionId: 'session-1',
        workspace: '/w',
        title: 'A title',
        time: '2026-03-04T05:06:09.089Z',
        messageId: 'm-u',
        type: 'message',
        role: 'user',
        text: 'what I typed',
      },
      // No id: keyed by the event that wrote it (sequence 4) and its place among that event's messages without one.
      {
        key: 'session-1/at/4.0',
        sessionId: 'session-1',
        workspace: '/w',
        title: 'A title',
        time: '2026-03-04T05:06:10.089Z',
        type: 'message',
        role: 'assistant',
        text: 'An answer without an id',
      },
      {
        key: 'session-1/m/m-plain',
        sessionId: 'session-1',
        workspace: '/w',
        title: 'A title',
        time: '2026-03-04T05:06:13.089Z',
        messageId: 'm-plain',
        type: 'message',
        role: 'user',
        text: 'typed, no raw content',
      },
    ]);
  });

  it("give each shell command its command, outcome and output, the call's message and time, and its result's", () => {
    const records = indexRecords(
      timed(
        call('c1', 'bash', { command: 'ls -la' }),
        result('c1', 'a\nb\n', { tool_execution: { state: 'completed', exitCode: 0, durationMs: 12 } }),
        call('c2', 'pwsh', { script: 'Get-ChildItem' }),
        result('c2', 'boom', { raw_content: 'what the person saw', tool_execution: { state: 'failed', exitCode: 1 } }),
        call('c3', 'powershell', { command: '', script: 'dir' }),
        result('c3', 'x', { tool_execution: { exitCode: null, durationMs: 0 } }),
        call('c4', 'bash', '{"command":"sleep 1"'),
      ),
      context,
    );
    expect(records).toEqual([
      {
        ...context,
        time: '2026-03-04T05:06:07.089Z',
        messageId: 'm-c1',
        key: 'session-1/m/m-c1/call/c1',
        type: 'command',
        tool: 'bash',
        callId: 'c1',
        resultMessageId: 'm-r-c1',
        resultTime: '2026-03-04T05:06:08.089Z',
        command: 'ls -la',
        arguments: '{"command":"ls -la"}',
        state: 'completed',
        exitCode: 0,
        durationMs: 12,
        output: 'a\nb\n',
      },
      {
        ...context,
        time: '2026-03-04T05:06:09.089Z',
        messageId: 'm-c2',
        key: 'session-1/m/m-c2/call/c2',
        type: 'command',
        tool: 'pwsh',
        callId: 'c2',
        resultMessageId: 'm-r-c2',
        resultTime: '2026-03-04T05:06:10.089Z',
        command: 'Get-ChildItem',
        arguments: '{"script":"Get-ChildItem"}',
        state: 'failed',
        exitCode: 1,
        output: 'what the person saw',
      },
      {
        ...context,
        time: '2026-03-04T05:06:11.089Z',
        messageId: 'm-c3',
        key: 'session-1/m/m-c3/call/c3',
        type: 'command',
        tool: 'powershell',
        callId: 'c3',
        resultMessageId: 'm-r-c3',
        resultTime: '2026-03-04T05:06:12.089Z',
        command: 'dir',
        arguments: '{"command":"","script":"dir"}',
        durationMs: 0,
        output: 'x',
      },
      // No result: no outcome, no output; arguments cut off: no command.
      {
        ...context,
        time: '2026-03-04T05:06:13.089Z',
        messageId: 'm-c4',
        key: 'session-1/m/m-c4/call/c4',
        type: 'command',
        tool: 'bash',
        callId: 'c4',
        command: '',
        arguments: '{"command":"sleep 1"',
        output: '',
      },
    ]);
  });

  it('say a result without an execution record failed when it reports an error as Reasonix words it', () => {
    const states = (content: string) =>
      only([call('c', 'read_file', { path: 'a.txt' }), result('c', content)])[0]!.state;
    expect(states('error: ENOENT')).toBe('failed');
    expect(states('Error reading a.txt')).toBe('failed');
    expect(states('ERROR:\tbad')).toBe('failed');
    expect(states('errors are fine here')).toBe('completed');
    expect(states('no error: all good')).toBe('completed');
    expect(states('')).toBe('completed');
    expect(
      only([
        call('c', 'read_file', { path: 'a.txt' }),
        result('c', 'fine', { tool_execution: { state: 'failed' } }),
      ])[0]!.state,
    ).toBe('failed');
    expect(
      only([call('c', 'read_file', { path: 'a.txt' }), { role: 'tool', tool_call_id: 'c', content: null }])[0]!.state,
    ).toBe('completed');
  });

  it('give each file tool its action, path and what changed', () => {
    const ok = (id: string) => result(id, 'ok');
    const records = only([
      call('r', 'read_file', { path: 'a.txt' }),
      ok('r'),
      call('w', 'write_file', { file_path: 'b.txt', content: 'x' }),
      ok('w'),
      call('e', 'edit_file', { path: 'c.txt', old_string: 'old', new_string: 'new' }),
      ok('e'),
      call('e2', 'edit_file', { path: 'c.txt', old_string: 7 }),
      ok('e2'),
      call('m', 'multi_edit', { path: 'd.txt', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c' }] }),
      ok('m'),
      call('m2', 'multi_edit', { path: 'd.txt', edits: 'not a list' }),
      ok('m2'),
      call('n', 'notebook_edit', { notebook_path: 'e.ipynb' }),
      ok('n'),
      call('d', 'delete_range', { path: 'f.txt' }),
      result('d', '--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,1 @@\n-gone one\n- gone two\n kept\n+added'),
      call('d2', 'delete_range', { path: 'f.txt' }),
      result('d2', 'error: range out of bounds\n-not a line'),
      call('s', 'delete_symbol', { path: 'g.ts' }),
      ok('s'),
      call('mv', 'move_file', { source: 'h.txt', destination: 'i.txt' }),
      ok('mv'),
      call('mv2', 'move_file', { from: 'j.txt', to: 'k.txt' }),
      ok('mv2'),
      call('mv3', 'move_file', { path: 'l.txt', target: 'm.txt' }),
      ok('mv3'),
      call('x', 'web_search', { query: 'anything' }),
      ok('x'),
    ]);
    const done = { state: 'completed' };
    expect(records).toEqual([
      { type: 'file', tool: 'read_file', action: 'read', path: 'a.txt', ...done },
      { type: 'file', tool: 'write_file', action: 'write', path: 'b.txt', ...done },
      { type: 'file', tool: 'edit_file', action: 'edit', path: 'c.txt', edits: [{ old: 'old', new: 'new' }], ...done },
      { type: 'file', tool: 'edit_file', action: 'edit', path: 'c.txt', edits: [{ old: '', new: '' }], ...done },
      {
        type: 'file',
        tool: 'multi_edit',
        action: 'edit',
        path: 'd.txt',
        edits: [
          { old: 'a', new: 'b' },
          { old: 'c', new: '' },
        ],
        ...done,
      },
      { type: 'file', tool: 'multi_edit', action: 'edit', path: 'd.txt', edits: [], ...done },
      { type: 'file', tool: 'notebook_edit', action: 'notebook-edit', path: 'e.ipynb', ...done },
      {
        type: 'file',
        tool: 'delete_range',
        action: 'delete-range',
        path: 'f.txt',
        removedLines: ['gone one', ' gone two'],
        ...done,
      },
      { type: 'file', tool: 'delete_range', action: 'delete-range', path: 'f.txt', removedLines: [], state: 'failed' },
      { type: 'file', tool: 'delete_symbol', action: 'delete-symbol', path: 'g.ts', ...done },
      { type: 'file', tool: 'move_file', action: 'move', path: 'h.txt', destination: 'i.txt', ...done },
      { type: 'file', tool: 'move_file', action: 'move', path: 'j.txt', destination: 'k.txt', ...done },
      { type: 'file', tool: 'move_file', action: 'move', path: 'l.txt', destination: 'm.txt', ...done },
      { type: 'call', tool: 'web_search', arguments: '{"query":"anything"}', output: 'ok', ...done },
    ]);
    // Without a result: no outcome, and a delete_range removed nothing anyone saw.
    expect(only([call('d', 'delete_range', { path: 'f.txt' }), call('r', 'read_file', { path: 'a.txt' })])).toEqual([
      { type: 'file', tool: 'delete_range', action: 'delete-range', path: 'f.txt', removedLines: [] },
      { type: 'file', tool: 'read_file', action: 'read', path: 'a.txt' },
    ]);
    // Arguments that are not an object give no path.
    for (const args of ['["a.txt"]', 'null', '"a.txt"', '{"path":'])
      expect(only([call('r', 'read_file', args), ok('r')])).toEqual([
        { type: 'file', tool: 'read_file', action: 'read', path: '', ...done },
      ]);
  });

  it('give a file tool its arguments and its output, and the message holding the output', () => {
    const records = indexRecords(
      timed(
        call('w', 'write_file', { path: 'plan.md', content: 'Kangaroo plan: café' }),
        result('w', 'wrote 19 bytes to plan.md'),
        call('r', 'read_file', { path: 'plan.md' }),
        { role: 'tool', tool_call_id: 'r', content: '1→Kangaroo plan: café' },
      ),
      context,
    );
    expect(
      records.map((record) => record.type === 'file' && [record.arguments, record.output, record.resultMessageId]),
    ).toEqual([
      ['{"path":"plan.md","content":"Kangaroo plan: café"}', 'wrote 19 bytes to plan.md', 'm-r-w'],
      // A result without an id: no message to point at.
      ['{"path":"plan.md"}', '1→Kangaroo plan: café', undefined],
    ]);
  });

  it("pair each call with the first result after it, whatever lies between, and flatten calls in OpenAI's nested form", () => {
    const records = indexRecords(
      timed(
        result('c', 'orphan before its call'),
        {
          role: 'assistant',
          id: 'm-1',
          content: '',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{"command":"one"}' } }],
        },
        { role: 'user', id: 'm-u', content: 'meanwhile' },
        result('c', 'first'),
        call('c', 'bash', { command: 'two' }),
        result('c', 'second'),
        call('c', 'bash', { command: 'three' }),
        { role: 'tool', tool_call_id: '', content: 'answers nothing' },
      ),
      context,
    );
    expect(
      records.map((record) =>
        record.type === 'command' ? [record.command, record.output, record.state] : [record.type],
      ),
    ).toEqual([
      // A result before any call of its id, and one naming none, answer no call: each is a record of its own.
      ['result'],
      ['one', 'first', 'completed'],
      ['message'],
      ['two', 'second', 'completed'],
      ['three', '', undefined],
      ['result'],
    ]);
    // A message never answers a call it makes itself: the result is the first one after it.
    const own = indexRecords(
      timed(
        result('c', 'its own', { tool_calls: [{ id: 'c', name: 'bash', arguments: '{"command":"own"}' }] }),
        result('c', 'after it'),
      ),
      context,
    );
    // Its own text answers no call before it: a result of its own.
    expect(own.map((record) => (record.type === 'command' ? [record.command, record.output] : [record.type]))).toEqual([
      ['result'],
      ['own', 'after it'],
    ]);
  });

  it('leave out a call without a result from where reading stopped at damage inside its turn', () => {
    const transcript = timed(
      call('a', 'bash', { command: 'before' }),
      call('b', 'bash', { command: 'at' }),
      result('b', 'done'),
      call('c', 'bash', { command: 'after' }),
    );
    const commands = (records: IndexRecord[]) =>
      records.map((record) => (record.type === 'command' ? record.command : ''));
    expect(commands(indexRecords(transcript, context, { unansweredFrom: 2 }))).toEqual(['before', 'at']);
    expect(commands(indexRecords(transcript, context, { unansweredFrom: 1 }))).toEqual(['at']);
    expect(commands(indexRecords(transcript, context))).toEqual(['before', 'at', 'after']);
  });

  it("take a result only from a tool message with a call id, and give a file tool's source as its path", () => {
    const records = only([
      call('c', 'bash', { command: 'ls' }),
      { role: 'user', id: 'm-u', content: 'not a result', tool_call_id: 'c' },
      result('c', 'the listing'),
      // A call without an id is answered by no result, not by one without a call id either.
      { role: 'assistant', id: 'm-a', content: '', tool_calls: [{ name: 'bash', arguments: '{"command":"pwd"}' }] },
      { role: 'tool', id: 'm-r-blank', tool_call_id: '', content: 'not its output' },
      call('s', 'delete_symbol', { source: 'n.ts' }),
      result('s', 'ok'),
    ]);
    expect(records).toEqual([
      { type: 'command', tool: 'bash', command: 'ls', state: 'completed', output: 'the listing' },
      { type: 'message', role: 'user', text: 'not a result' },
      { type: 'command', tool: 'bash', command: 'pwd', output: '' },
      // What the tool message says is still found: a result of its own.
      { type: 'result', tool: '', output: 'not its output', state: 'completed' },
      { type: 'file', tool: 'delete_symbol', action: 'delete-symbol', path: 'n.ts', state: 'completed' },
    ]);
  });

  it('index an assistant message without text only by its calls, and a call without a name not at all', () => {
    expect(
      only([
        {
          role: 'assistant',
          id: 'm-a',
          content: null,
          tool_calls: [{ id: 'c', name: 'bash', arguments: '{"command":"true"}' }, { id: 'c2' }],
        },
        { role: 'tool', id: 'm-r', tool_call_id: 'c', content: null },
        { role: 'tool', id: 'm-r2', tool_call_id: 'c2', content: 'x' },
      ]),
    ).toEqual([{ type: 'command', tool: 'bash', command: 'true', state: 'completed', output: '' }]);
  });

  it('give a failed delete_range no removed lines, and an outcome only the fields its execution record has', () => {
    const records = only([
      call('d', 'delete_range', { path: 'f.txt' }),
      result('d', '--- a/f.txt\n+++ b/f.txt\n-not removed', { tool_execution: { state: 'failed', exitCode: 1 } }),
      call('c', 'bash', { command: 'ls' }),
      result('c', 'out', { tool_execution: { exitCode: 0 } }),
    ]);
    expect(records).toStrictEqual([
      {
        type: 'file',
        tool: 'delete_range',
        action: 'delete-range',
        path: 'f.txt',
        removedLines: [],
        state: 'failed',
        exitCode: 1,
      },
      { type: 'command', tool: 'bash', command: 'ls', exitCode: 0, output: 'out' },
    ]);
  });
});
