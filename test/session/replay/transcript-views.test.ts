import { describe, expect, it } from 'vitest';
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { createSession, openSession, type Message, type PersonMessage, type SessionRead } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { messageTime } from '../../../src/session/replay/views.js';
import { FIXTURE_NAMES, fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';
import { complete } from '../../support/sessions/messages.js';

/**
 * The transcript of a session as a reader of the library gets it, from sessions the real Reasonix
 * wrote: the canonical transcript with its times, the person's view, the model view, and the index
 * inspect and listing read (kept whole, summarised, or as an index with or without previews).
 */
const seen = (message: Message) => message.origin !== 'host' && !message.local_only;
const typed = (message: Message) => message.role === 'user' && message.origin !== 'host';
const typedText = (message: Message) =>
  message.raw_content || (typeof message.content === 'string' ? message.content : undefined);
const start = (text: string) => text.slice(0, 200);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('the transcript index agrees with the messages Reasonix wrote', () => {
  it.each(FIXTURE_NAMES)('%s: whole, summarised and indexed reads give the same index', async (name) => {
    const { dir, counts } = fixture(name);
    const whole = await readSession(dir, { keep: 'whole' });
    const entries = whole.projection.transcript;
    const roles: Record<string, number> = {};
    for (const { message } of entries) roles[message.role] = (roles[message.role] ?? 0) + 1;
    expect(roles).toEqual(counts.messagesByRole);
    for (const keep of ['whole', 'summary', 'index'] as const) {
      for (const previews of [false, true]) {
        const index = (await readSession(dir, { keep, previews })).projection.transcriptIndex;
        expect(index.length).toBe(entries.length);
        const answered = index.answeredCalls();
        const answeredIds = new Set(
          entries.filter(({ message }) => message.role === 'tool').map(({ message }) => message.tool_call_id ?? ''),
        );
        for (const [at, { message, seq }] of entries.entries()) {
          expect(index.role(at)).toBe(message.role);
          expect(index.messageId(at)).toBe(message.id);
          expect(index.has(message.id!)).toBe(true);
          expect(index.seq(at)).toBe(seq);
          expect(index.seenByPerson(at)).toBe(seen(message));
          expect(index.typedByPerson(at)).toBe(typed(message));
          expect(index.pruned(at)).toBe(false);
          expect(index.answeredCall(at)).toBe(message.role === 'tool' ? (message.tool_call_id ?? '') : '');
          const calls = index.toolCalls(at);
          expect(calls.map((call) => [index.callId(call.idRef), call.name, call.arguments])).toEqual(
            (message.tool_calls ?? []).map((call) => [call.id, call.name, call.arguments ? 'object' : 'none']),
          );
          for (const call of calls)
            expect(answered[call.idRef]).toBe(answeredIds.has(index.callId(call.idRef)) ? 1 : 0);
          if (keep === 'whole') expect(index.typedText(at)).toBe(typedText(message));
          // A summary keeps the start of what users and tools said, and no other text.
          else if (keep === 'summary')
            expect(index.typedText(at)).toBe(
              message.role === 'user' || message.role === 'tool'
                ? start(typedText(message) ?? '') || typedText(message)
                : typeof message.content === 'string'
                  ? ''
                  : undefined,
            );
          else if (previews) expect(index.typedText(at)).toBe(typed(message) ? start(typedText(message)!) : undefined);
          else
            expect(() => index.typedText(at)).toThrow('this replay kept no previews: read the session with previews');
        }
        expect(index.has('not-a-message-id')).toBe(false);
        if (keep === 'index')
          expect(() => index.kept).toThrow(
            "this replay kept only an index of the messages: read the session with keep 'whole' or 'summary'",
          );
        else expect(index.kept.map((entry) => entry.seq)).toEqual(entries.map((entry) => entry.seq));
      }
    }
  });

  it('tool-calls: each call by its id and name, answered by the result that names it', async () => {
    const index = (await readSession(fixture('tool-calls').dir, { keep: 'index' })).projection.transcriptIndex;
    const callsOf = (at: number) =>
      index.toolCalls(at).map((call) => `${index.callId(call.idRef)} ${call.name} ${call.arguments}`);
    const byRole = Array.from({ length: index.length }, (_, at) => index.role(at));
    expect(byRole.filter((role) => role === 'tool')).toHaveLength(5);
    const withCalls = Array.from({ length: index.length }, (_, at) => at).filter(
      (at) => index.toolCalls(at).length > 0,
    );
    expect(withCalls.map(callsOf)).toEqual([
      ['call_ls bash object'],
      ['call_missing bash object'],
      ['call_read read_file object', 'call_write write_file object'],
      ['call_edit edit_file object'],
    ]);
    expect(Array.from({ length: index.length }, (_, at) => index.answeredCall(at)).filter(Boolean)).toEqual([
      'call_ls',
      'call_missing',
      'call_read',
      'call_write',
      'call_edit',
    ]);
    expect(index.seq(index.length - 1)).toBe(60);
    expect(index.typedByPerson(2)).toBe(true);
    expect(index.typedByPerson(1)).toBe(false);
    expect(index.seenByPerson(1)).toBe(false);
  });
});

describe('the views of a session a reader gets from openSession', () => {
  it('plain-chat: the person reads what they typed and the answer; the model is sent all four messages', async () => {
    const session = await openSession(fixture('plain-chat').dir);
    const read = await session.read();
    const [system, host, user, assistant] = read.projection.transcript.map((entry) => entry.message);
    expect(await collect(session.personView())).toStrictEqual<PersonMessage[]>([
      {
        id: system!.id,
        role: 'system',
        content: system!.content as string,
        time: new Date(1796021328608).toISOString(),
      },
      {
        id: user!.id,
        role: 'user',
        content: 'Say hello in one short sentence.',
        time: new Date(1796021328644).toISOString(),
      },
      {
        id: assistant!.id,
        role: 'assistant',
        content: 'Hello! How can I help you today?',
        time: new Date(1796021328660).toISOString(),
      },
    ]);
    expect(host!.origin).toBe('host');
    // The host's message has no createdAt: it takes its batch's commit time; the typed one keeps its stamp.
    expect((await collect(session.transcript())).map(({ time, seq }) => [seq, time])).toEqual([
      [1, 1796021328608],
      [4, 1796021328644],
      [5, 1796021328644],
      [7, 1796021328660],
    ]);
    expect(await collect(session.modelView())).toEqual([system, host, user, assistant]);
  });

  it('jsonl-migrated: messages imported in one instant take distinct, ordered times', async () => {
    const session = await openSession(fixture('jsonl-migrated').dir);
    const timed = await collect(session.transcript());
    expect(timed.map(({ time }) => time - 1796021332824)).toEqual([0, 1, 2, 3, 4, 36, 36, 50]);
    const person = await collect(session.personView());
    expect(person.map((message) => [message.role, message.content])).toEqual([
      ['system', 'You are a legacy assistant.'],
      ['user', 'What files are here?'],
      ['assistant', 'Let me check.'],
      ['tool', 'README.md\n'],
      ['assistant', 'There is one file: README.md.'],
      ['user', 'And what now?'],
      ['assistant', 'Continuing the legacy session.'],
    ]);
    expect(person[2]!.toolCalls).toEqual([{ id: 'call_legacy_1', name: 'bash', arguments: '{"command":"ls"}' }]);
    expect(person[3]).toMatchObject({ toolCallId: 'call_legacy_1', name: 'bash' });
    expect(Object.keys(person[4]!).sort()).toEqual(['content', 'id', 'role', 'time']);
    expect(person[4]!.time).toBe(new Date(1796021332828).toISOString());
  });

  it('cjk-emoji: the person reads what they typed, the model what it was sent', async () => {
    const session = await openSession(fixture('cjk-emoji').dir);
    const person = await collect(session.personView());
    const model = await collect(session.modelView());
    const typedMessage = model.find((message) => message.role === 'user' && message.origin === 'user')!;
    expect(typedMessage.content).toMatch(/^<reasoning-language>/);
    expect(person.find((message) => message.role === 'user')!.content).toBe(typedMessage.raw_content);
    expect(typedMessage.raw_content).toMatch(/^请用一句话总结这个项目 🚀/);
    expect(person.at(-1)!.content).toBe('这是一个测试项目 ✅ — テストです 🍣, 테스트입니다 🇰🇷 👨‍👩‍👧‍👦');
  });

  it("interrupted and compacted: local-only records are nobody's to read; a compaction changes only what the model is sent", async () => {
    const interrupted = await openSession(fixture('interrupted').dir);
    const transcript = await collect(interrupted.transcript());
    expect(transcript).toHaveLength(10);
    const person = await collect(interrupted.personView());
    expect(person.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
    const model = await collect(interrupted.modelView());
    expect(model).toHaveLength(8);
    expect(model.some((message) => message.local_only)).toBe(false);

    const compacted = await openSession(fixture('compacted').dir);
    expect(await collect(compacted.transcript())).toHaveLength(19);
    expect(await collect(compacted.personView())).toHaveLength(13);
    const sent = await collect(compacted.modelView());
    expect(sent).toHaveLength(5);
    expect(sent.at(-1)!.content).toMatch(/^Answer 6: /);
  });

  it('tool-calls: the provider is sent roles, contents and calls in the OpenAI form, nothing of the bookkeeping', async () => {
    const { providerMessages } = await import('../../../src/index.js');
    const read = await readSession(fixture('tool-calls').dir);
    const sent = providerMessages(read.projection);
    expect(sent).toHaveLength(19);
    expect(sent[3]).toStrictEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [
        { id: 'call_ls', type: 'function', function: { name: 'bash', arguments: '{"command":"echo listing && ls"}' } },
      ],
    });
    expect(sent[4]).toStrictEqual({
      role: 'tool',
      content: 'listing\nnotes.txt\n',
      tool_call_id: 'call_ls',
      name: 'bash',
    });
    // An assistant message with calls and no text is sent with content null, as OpenAI's form has it.
    expect(sent[2]).toStrictEqual({ role: 'user', content: 'List the files in this workspace.' });
    expect(sent[8]).toStrictEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_missing', type: 'function', function: { name: 'bash', arguments: '{"command":"ls missing-dir"}' } },
      ],
    });
    expect(sent[0]).toEqual({ role: 'system', content: read.projection.transcript[0]!.message.content });
    expect(sent.at(-1)).toEqual({
      role: 'assistant',
      content: 'Done: new.txt created and beta capitalised in notes.txt.',
    });
  });
});

/** A session rxstore writes, replayed: rewrites, retractions and replacements of the transcript. */
async function written(batches: BatchToWrite[]): Promise<{ dir: string; whole: SessionRead; index: SessionRead }> {
  // Calls with cut or empty arguments, written on purpose: Reasonix would take no new turn after them.
  const { dir } = await createSession({
    storeDir: await tempDir(),
    validate: false,
    batches: [
      { operationId: 'session-create', events: [{ kind: 'session/config', payload: { modelRef: 'mock/mock-model' } }] },
      ...batches,
    ],
  });
  return { dir, whole: await readSession(dir), index: await readSession(dir, { keep: 'index', previews: true }) };
}
const calls = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, n) => ({
    id: `${prefix}_${n}`,
    name: n % 2 ? 'read_file' : 'bash',
    arguments: n % 3 === 0 ? '{"a":1}' : n % 3 === 1 ? '' : '{"cut',
  }));

describe('the index follows what the log does to the transcript', () => {
  it('an upsert rewrites a message in place, a retract takes messages out, later ones move up', async () => {
    // Each batch is committed at a time of its own, a second apart: the order of commit times is the test's, not the clock's.
    const { dir, whole, index } = await written([
      {
        operationId: 'turn-1',
        createdAt: '2026-01-01T00:00:01.000Z',
        events: [
          complete({ role: 'user', id: 'u1', origin: 'user', content: 'first', raw_content: 'typed first' }),
          complete({ role: 'assistant', id: 'a1', content: '', tool_calls: calls(3, 'one') }),
          complete({
            role: 'tool',
            id: 't1',
            tool_call_id: 'one_0',
            name: 'bash',
            content: '[elided tool result — 10 lines]',
          }),
          complete({
            role: 'tool',
            id: 't2',
            tool_call_id: 'one_1',
            name: 'read_file',
            content: 'not pruned',
            local_only: true,
          }),
          complete({ role: 'user', id: 'u2', origin: 'host', content: 'context' }),
          complete({ role: 'user', id: 'u3', origin: 'user', content: 'second' }),
        ],
      },
      {
        operationId: 'turn-2',
        createdAt: '2026-01-01T00:00:02.000Z',
        events: [
          {
            kind: 'message/upsert',
            payload: { message: { role: 'assistant', id: 'a1', content: 'rewritten', tool_calls: calls(1, 'two') } },
          },
        ],
      },
      {
        operationId: 'turn-3',
        createdAt: '2026-01-01T00:00:03.000Z',
        events: [{ kind: 'message/retract', payload: { messageIds: ['u1', 't2'] } }],
      },
      {
        operationId: 'turn-4',
        createdAt: '2026-01-01T00:00:04.000Z',
        events: [
          {
            kind: 'message/upsert',
            payload: {
              message: { role: 'user', id: 'u4', origin: 'user', content: 'appended by upsert', createdAt: -1000 },
            },
          },
          complete({ role: 'assistant', id: 'a5', content: 'late', createdAt: 9e15 }),
        ],
      },
    ]);
    for (const read of [whole, index]) {
      const at = read.projection.transcriptIndex;
      expect(Array.from({ length: at.length }, (_, n) => at.messageId(n))).toEqual([
        'a1',
        't1',
        'u2',
        'u3',
        'u4',
        'a5',
      ]);
      expect(Array.from({ length: at.length }, (_, n) => at.seq(n))).toEqual([8, 4, 6, 7, 10, 11]);
      expect(at.toolCalls(0).map((call) => [at.callId(call.idRef), call.name, call.arguments])).toEqual([
        ['two_0', 'bash', 'object'],
      ]);
      expect(at.pruned(1)).toBe(true);
      expect(at.answeredCall(1)).toBe('one_0');
      expect([0, 1, 2, 3, 4].map((n) => at.seenByPerson(n))).toEqual([true, true, false, true, true]);
      expect([0, 1, 2, 3, 4].map((n) => at.typedByPerson(n))).toEqual([false, false, false, true, true]);
      expect(at.has('u1')).toBe(false);
      expect(at.has('t2')).toBe(false);
      expect(at.has('u4')).toBe(true);
      expect([3, 4].map((n) => at.typedText(n))).toEqual(['second', 'appended by upsert']);
    }
    expect(whole.projection.transcript.map((entry) => entry.message.content)).toEqual([
      'rewritten',
      '[elided tool result — 10 lines]',
      'context',
      'second',
      'appended by upsert',
      'late',
    ]);
    // A createdAt before 1970 is still a time; one past what a Date holds is not, and the message takes its batch's commit time.
    const timed = await collect((await openSession(dir)).transcript());
    const commits = whole.projection.transcript.map((entry) => entry.batchTime);
    const times = timed.map((entry) => entry.time);
    expect([times[0], times[4], times[5]]).toEqual([commits[0], -1000, commits[5]]);
    // The rewritten message took a later commit time than the messages after it: they follow it by 1 ms each.
    expect(commits[1]).toBeLessThan(commits[0]!);
    expect(times.slice(1, 4)).toEqual([times[0]! + 1, times[0]! + 2, times[0]! + 3]);
    expect(commits[5]).toBeGreaterThan(0);
  });

  it('a replaced history becomes the whole transcript; calls rewritten a thousand times over are still read right', async () => {
    const many = calls(1100, 'big');
    const { whole, index } = await written([
      {
        operationId: 'turn-1',
        events: [
          complete({ role: 'user', id: 'u1', origin: 'user', content: 'go' }),
          complete({ role: 'assistant', id: 'a1', content: '', tool_calls: many }),
        ],
      },
      {
        operationId: 'turn-2',
        events: [
          {
            kind: 'message/upsert',
            payload: { message: { role: 'assistant', id: 'a1', content: '', tool_calls: calls(2, 'small') } },
          },
        ],
      },
      {
        operationId: 'turn-3',
        events: [
          complete({ role: 'assistant', id: 'a2', content: '', tool_calls: many }),
          complete({ role: 'tool', id: 't1', tool_call_id: 'big_5', name: 'read_file', content: 'x' }),
        ],
      },
      {
        operationId: 'turn-4',
        events: [
          { kind: 'message/retract', payload: { messageIds: ['a2'] } },
          complete({ role: 'assistant', id: 'a3', content: 'after', tool_calls: calls(2, 'last') }),
        ],
      },
    ]);
    for (const read of [whole, index]) {
      const at = read.projection.transcriptIndex;
      expect(Array.from({ length: at.length }, (_, n) => at.messageId(n))).toEqual(['u1', 'a1', 't1', 'a3']);
      const described = (n: number) =>
        at.toolCalls(n).map((call) => `${at.callId(call.idRef)} ${call.name} ${call.arguments}`);
      expect(described(1)).toEqual(['small_0 bash object', 'small_1 read_file none']);
      expect(described(3)).toEqual(['last_0 bash object', 'last_1 read_file none']);
      expect(at.answeredCall(2)).toBe('big_5');
    }
    const replaced = await written([
      {
        operationId: 'turn-1',
        events: [
          complete({ role: 'user', id: 'u1', origin: 'user', content: 'go' }),
          complete({ role: 'assistant', id: 'a1', content: '', tool_calls: calls(3, 'old') }),
        ],
      },
      {
        operationId: 'turn-2',
        events: [
          {
            kind: 'history/replace',
            payload: {
              reason: 'test',
              messages: [
                { role: 'system', id: 's1', content: 'new start' },
                { role: 'assistant', id: 'a9', content: '', tool_calls: calls(3, 'new') },
              ],
            },
          },
        ],
      },
    ]);
    for (const read of [replaced.whole, replaced.index]) {
      const at = read.projection.transcriptIndex;
      expect(Array.from({ length: at.length }, (_, n) => at.messageId(n))).toEqual(['s1', 'a9']);
      expect(at.has('u1')).toBe(false);
      expect(at.has('a1')).toBe(false);
      expect(at.toolCalls(1).map((call) => `${at.callId(call.idRef)} ${call.arguments}`)).toEqual([
        'new_0 object',
        'new_1 none',
        'new_2 other',
      ]);
      expect(at.typedText(0)).toBe(read === replaced.whole ? 'new start' : undefined);
    }
  });

  it('empty fields are left out of what a person and a provider read; times past what a Date holds are not times', async () => {
    const { dir, whole, index } = await written([
      {
        operationId: 'turn-1',
        events: [
          {
            kind: 'history/replace',
            payload: {
              reason: 'test',
              messages: [
                { role: 'system', content: 'You are helpful.' },
                { role: 'user', id: 'u1', origin: 'user', content: 'hi', createdAt: -9e15 },
                { role: 'user', id: 'gone', origin: 'user', content: 'taken back' },
                { role: 'assistant', id: 'a1', content: '', tool_calls: [] },
                { role: 'assistant', id: 'a2', content: '', tool_calls: [{ id: 'c1', name: 'bash', arguments: '{}' }] },
                { role: 'tool', id: 't1', tool_call_id: 'c1', name: '', content: '' },
                { role: 'assistant', id: 'a3', content: 'end', createdAt: 8.64e15 },
              ],
            },
          },
        ],
      },
      { operationId: 'turn-2', events: [{ kind: 'message/retract', payload: { messageIds: ['gone'] } }] },
    ]);
    // A message without an id stays when others are taken out.
    for (const read of [whole, index]) {
      const at = read.projection.transcriptIndex;
      expect(Array.from({ length: at.length }, (_, n) => at.messageId(n))).toEqual([
        undefined,
        'u1',
        'a1',
        'a2',
        't1',
        'a3',
      ]);
      expect(at.role(0)).toBe('system');
    }
    const session = await openSession(dir);
    const times = (await collect(session.transcript())).map((entry) => entry.time);
    const commit = whole.projection.transcript[0]!.batchTime;
    expect(times).toEqual([commit, commit + 1, commit + 2, commit + 3, commit + 4, 8.64e15]);
    const person = await collect(session.personView());
    expect(person).toStrictEqual<PersonMessage[]>([
      { role: 'system', content: 'You are helpful.', time: new Date(commit).toISOString() },
      { id: 'u1', role: 'user', content: 'hi', time: new Date(commit + 1).toISOString() },
      { id: 'a1', role: 'assistant', content: '', time: new Date(commit + 2).toISOString() },
      {
        id: 'a2',
        role: 'assistant',
        content: '',
        time: new Date(commit + 3).toISOString(),
        toolCalls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
      },
      { id: 't1', role: 'tool', content: '', time: new Date(commit + 4).toISOString(), toolCallId: 'c1' },
      { id: 'a3', role: 'assistant', content: 'end', time: '+275760-09-13T00:00:00.000Z' },
    ]);
    const { providerMessages } = await import('../../../src/index.js');
    expect(providerMessages(whole.projection)).toStrictEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
      },
      { role: 'tool', content: '', tool_call_id: 'c1', name: 'bash' },
      { role: 'assistant', content: 'end' },
    ]);
  });
});

describe("a message's time", () => {
  it("is its createdAt when a Date can hold it; else its batch's time, at least 1 ms after the message before", () => {
    expect(messageTime({ role: 'user', createdAt: 5 }, 1000, 0)).toBe(5);
    expect(messageTime({ role: 'user', createdAt: -8.64e15 }, 1000, 0)).toBe(-8.64e15);
    expect(messageTime({ role: 'user', createdAt: 8.64e15 + 1 }, 1000, 0)).toBe(1000);
    expect(messageTime({ role: 'user', createdAt: -8.64e15 - 1 }, 1000, 0)).toBe(1000);
    expect(messageTime({ role: 'user', createdAt: '5' as unknown as number }, 1000, 0)).toBe(1000);
    expect(messageTime({ role: 'user' }, 1000, 1000)).toBe(1001);
  });
});

describe('the provider request, built as Reasonix builds it (judged in provider-request-matches-reasonix)', () => {
  it("sends each call's results right after it in call order, a stand-in for a call without one, no stray result, names only on results, provider_content in place of content", async () => {
    const call = (id: string, name: string) => ({ id, name, arguments: '{}' });
    const { whole } = await written([
      {
        operationId: 'turn-1',
        events: [
          {
            kind: 'message/complete',
            payload: { message: { role: 'system', id: 's', content: 'sys', name: 'system-name' } },
          },
          {
            kind: 'message/complete',
            payload: { message: { role: 'tool', id: 'stray', tool_call_id: 'c1', content: 'before its call' } },
          },
          {
            kind: 'message/complete',
            payload: { message: { role: 'user', id: 'u1', content: 'typed', provider_content: 'sent instead' } },
          },
          {
            kind: 'message/complete',
            payload: {
              message: {
                role: 'assistant',
                id: 'a1',
                content: '',
                tool_calls: [call('c1', 'bash'), call('c2', 'grep'), call('', 'ls')],
              },
            },
          },
          {
            kind: 'message/complete',
            payload: { message: { role: 'tool', id: 't2', tool_call_id: 'c2', name: 'other', content: 'two' } },
          },
          {
            kind: 'message/complete',
            payload: { message: { role: 'tool', id: 't9', tool_call_id: 'c9', content: 'no such call' } },
          },
          {
            kind: 'message/complete',
            payload: { message: { role: 'user', id: 'u2', content: 'next', provider_content: '' } },
          },
        ],
      },
    ]);
    const { providerMessages } = await import('../../../src/index.js');
    const stand = '[no result: the previous turn was interrupted before this tool call completed]';
    expect(providerMessages(whole.projection)).toStrictEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'sent instead' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'grep', arguments: '{}' } },
          { type: 'function', function: { name: 'ls', arguments: '{}' } },
        ],
      },
      { role: 'tool', content: stand, tool_call_id: 'c1', name: 'bash' },
      { role: 'tool', content: 'two', tool_call_id: 'c2', name: 'grep' },
      { role: 'tool', content: stand, name: 'ls' },
      { role: 'user', content: 'next' },
    ]);

    // The log's last message a call with nothing after it: the stand-in ends the request. A result
    // without a call id answers a call without one.
    const { whole: interrupted } = await written([
      {
        operationId: 'turn-1',
        events: [
          {
            kind: 'message/complete',
            payload: { message: { role: 'assistant', id: 'a0', content: '', tool_calls: [call('', 'ls')] } },
          },
          { kind: 'message/complete', payload: { message: { role: 'tool', id: 't0', content: 'listed' } } },
          {
            kind: 'message/complete',
            payload: { message: { role: 'assistant', id: 'a1', content: '', tool_calls: [call('c1', 'bash')] } },
          },
        ],
      },
    ]);
    expect(providerMessages(interrupted.projection)).toStrictEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', content: 'listed', name: 'ls' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
      },
      { role: 'tool', content: stand, tool_call_id: 'c1', name: 'bash' },
    ]);
  });
});
