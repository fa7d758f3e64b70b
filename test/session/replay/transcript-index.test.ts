// The transcript's index as the replay keeps it (one row a message, its calls end to end): what each row
// says after every way the transcript is rewritten — a message put in another's place, messages taken out,
// the whole transcript replaced — including after the calls of rewritten messages are compacted away.
import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/compact/string-table.js';
import type { Message } from '../../../src/session/replay/message.js';
import { LEGACY_PRUNE_MARKER, TranscriptIndex } from '../../../src/session/replay/transcript-index.js';
import { collidingRecordKeys, transcriptRecordKeys } from '../../../src/session/replay/transcript-records.js';
import { toolResult as result } from '../../support/sessions/messages.js';

/** The index with each message's record keys taken from it, as the replay takes them from the message before it is kept. */
class WholeMessageIndex extends TranscriptIndex {
  override push(
    message: Message,
    seq: number,
    batchTime: number,
    records: readonly string[] = collidingRecordKeys(message),
  ): void {
    super.push(message, seq, batchTime, records);
  }
  override upsert(
    message: Message,
    seq: number,
    batchTime: number,
    records: readonly string[] = collidingRecordKeys(message),
  ): void {
    super.upsert(message, seq, batchTime, records);
  }
  override replace(
    messages: readonly Message[],
    seq: number,
    batchTime: number,
    records: readonly (readonly string[])[] = messages.map(collidingRecordKeys),
  ): void {
    super.replace(messages, seq, batchTime, records);
  }
}
const index = (keeping = { messages: true, previews: false }) =>
  new WholeMessageIndex(new StringTable(), new StringTable(), keeping);
const user = (id: string | undefined, content = 'hi', extra: Partial<Message> = {}): Message => ({
  role: 'user',
  ...(id === undefined ? {} : { id }),
  content,
  ...extra,
});
const calling = (id: string, calls: [string, string, string][]): Message => ({
  role: 'assistant',
  id,
  content: '',
  tool_calls: calls.map(([call, name, args]) => ({ id: call, name, arguments: args })),
});

/** Each row as a reader sees it: id, role, sequence, calls (id, name, arguments' shape), the call it answers. */
function rows(transcript: TranscriptIndex) {
  return Array.from({ length: transcript.length }, (_, at) => ({
    id: transcript.messageId(at),
    role: transcript.role(at),
    seq: transcript.seq(at),
    calls: transcript.toolCalls(at).map((call) => [transcript.callId(call.idRef), call.name, call.arguments]),
    answers: transcript.answeredCall(at),
  }));
}

describe('TranscriptIndex', () => {
  it("keeps each message's id, role, sequence, calls and the call it answers, and the arguments' shape", () => {
    const transcript = index();
    transcript.push(user('u1'), 1, 100);
    transcript.push(
      calling('a1', [
        ['c1', 'bash', '{"command":"ls"}'],
        ['c2', 'grep', ''],
        ['c3', 'ls', '[1]'],
      ]),
      2,
      100,
    );
    transcript.push(result('t1', 'c1'), 3, 100);
    transcript.push(result(undefined, ''), 4, 100);
    expect(rows(transcript)).toEqual([
      { id: 'u1', role: 'user', seq: 1, calls: [], answers: '' },
      {
        id: 'a1',
        role: 'assistant',
        seq: 2,
        calls: [
          ['c1', 'bash', 'object'],
          ['c2', 'grep', 'none'],
          ['c3', 'ls', 'other'],
        ],
        answers: '',
      },
      { id: 't1', role: 'tool', seq: 3, calls: [], answers: 'c1' },
      { id: undefined, role: 'tool', seq: 4, calls: [], answers: '' },
    ]);
    expect(transcript.has('a1')).toBe(true);
    expect(transcript.has('nope')).toBe(false);
  });

  it('a message put in the place of one with its id keeps that place; one without an id, or an id not there, comes last', () => {
    const transcript = index();
    transcript.push(user('u1'), 1, 100);
    transcript.push(calling('a1', [['c1', 'bash', '{}']]), 2, 100);
    transcript.push(user(undefined, 'no id'), 3, 100);
    transcript.upsert(calling('a1', [['c2', 'grep', '{}']]), 4, 100);
    transcript.upsert(user(undefined, 'also no id'), 5, 100);
    transcript.upsert(user('u9'), 6, 100);
    expect(rows(transcript).map(({ id, seq, calls }) => [id ?? null, seq, calls])).toEqual([
      ['u1', 1, []],
      ['a1', 4, [['c2', 'grep', 'object']]],
      [null, 3, []],
      [null, 5, []],
      ['u9', 6, []],
    ]);
    expect(transcript.kept.map((entry) => entry.message.content)).toEqual(['hi', '', 'no id', 'also no id', 'hi']);
  });

  it('taking messages out by id ("" for those without one) keeps the rest in order, each found again by its id', () => {
    const transcript = index();
    transcript.push(user('u1'), 1, 100);
    transcript.push(calling('a1', [['c1', 'bash', '{}']]), 2, 100);
    transcript.push(user(undefined, 'no id'), 3, 100);
    transcript.push(result('t1', 'c1'), 4, 100);
    transcript.push(user('u2'), 5, 100);
    transcript.retract(['a1', 'unknown']);
    expect(rows(transcript).map(({ id }) => id ?? null)).toEqual(['u1', null, 't1', 'u2']);
    expect(transcript.has('a1')).toBe(false);
    transcript.retract(['']);
    expect(rows(transcript).map(({ id }) => id ?? null)).toEqual(['u1', 't1', 'u2']);
    // Each is found where it now is: a message put in its place lands there.
    transcript.upsert(user('u2', 'edited'), 6, 100);
    transcript.upsert(result('t1', 'c7'), 7, 100);
    expect(rows(transcript).map(({ id, seq, answers }) => [id, seq, answers])).toEqual([
      ['u1', 1, ''],
      ['t1', 7, 'c7'],
      ['u2', 6, ''],
    ]);
    expect(transcript.kept.map((entry) => entry.message.content)).toEqual(['hi', 'ok', 'edited']);
  });

  it('replaced whole: only the new messages are there, and an old id is found no more', () => {
    const transcript = index();
    transcript.push(user('u1'), 1, 100);
    transcript.push(calling('a1', [['c1', 'bash', '{}']]), 2, 100);
    transcript.replace([user('n1'), calling('n2', [['c9', 'ls', '{}']])], 3, 200);
    expect(rows(transcript)).toEqual([
      { id: 'n1', role: 'user', seq: 3, calls: [], answers: '' },
      { id: 'n2', role: 'assistant', seq: 3, calls: [['c9', 'ls', 'object']], answers: '' },
    ]);
    expect([transcript.has('u1'), transcript.has('a1'), transcript.has('n2')]).toEqual([false, false, true]);
    // The old id is a new message when it comes again.
    transcript.upsert(user('u1', 'again'), 4, 200);
    expect(rows(transcript).map(({ id }) => id)).toEqual(['n1', 'n2', 'u1']);
  });

  it('answers: which calls some result answers, and the first result whose call an earlier one answered (not local-only, not without a call id)', () => {
    const transcript = index();
    transcript.push(
      calling('a1', [
        ['c1', 'bash', '{}'],
        ['c2', 'bash', '{}'],
      ]),
      1,
      100,
    );
    transcript.push(result('t0', ''), 2, 100);
    transcript.push(result('t00', ''), 3, 100);
    transcript.push(result('t1', 'c1'), 4, 100);
    transcript.push(result('t1b', 'c1', { local_only: true }), 5, 100);
    expect(transcript.firstRepeatedRecord()).toBeUndefined();
    const answered = transcript.answeredCalls();
    expect(
      ['c1', 'c2'].map(
        (call) => answered[transcript.toolCalls(0).find((found) => transcript.callId(found.idRef) === call)!.idRef],
      ),
    ).toEqual([1, 0]);
    transcript.push(result('t2', 'c1'), 6, 100);
    expect(transcript.firstRepeatedRecord()).toEqual({ at: 5, key: 'tool:c1' });
  });

  it('the first repeated record stays the one a scan of every record finds, through every rewrite, thousands of them', () => {
    // A small generator of its own, so that every run makes the same steps.
    let seed = 7;
    const next = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    /** Reasonix's rule, read from each whole message: the first record key met twice, in order. */
    const scanned = (transcript: TranscriptIndex) => {
      const seen = new Set<string>();
      for (const [at, entry] of transcript.kept.entries()) {
        for (const key of transcriptRecordKeys(entry.message)) {
          if (seen.has(key)) return { at, key };
          seen.add(key);
        }
      }
      return undefined;
    };
    const transcript = index();
    const calls = ['', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'];
    const receipt = { id: 'r', kind: 'k', tool: 't', subject: 's', outcome: 'o' };
    const made = (id: string): Message => {
      const kind = next(14);
      if (kind < 4) return user(id);
      if (kind === 4) return user(undefined);
      if (kind === 5) return { role: 'assistant', id, content: '', local_only: true };
      if (kind === 6) return user(id, 'hi', { decision_receipts: [receipt, receipt] });
      if (kind === 7) return { role: 'assistant', id: `${id.slice(0, 2)}:notice:1`, content: 'a' };
      return result(id, calls[next(calls.length)]!, next(5) === 0 ? { local_only: true } : {});
    };
    let repeatedSeen = 0;
    let othersSeen = 0;
    let callsSeen = 0;
    for (let step = 1; step <= 3000; step += 1) {
      const id = `m${next(40)}`;
      const choice = next(100);
      const message = made(id);
      // As the replay writes them: ids stay distinct (a second message/complete of an id is refused before).
      const there = message.id !== undefined && transcript.has(message.id);
      if (choice < 55 && !there) transcript.push(message, step, 100);
      else if (choice < 90 && message.id !== undefined) transcript.upsert(message, step, 100);
      else if (choice < 94) transcript.retract([`m${next(40)}`, `m${next(40)}`]);
      else transcript.replace([message, made(`n${next(40)}`)], step, 100);
      const expected = scanned(transcript);
      expect(transcript.firstRepeatedRecord(), `after step ${step}`).toEqual(expected);
      if (expected !== undefined) repeatedSeen += 1;
      if (expected?.key.startsWith('m:')) othersSeen += 1;
      if (expected?.key.startsWith('tool:')) callsSeen += 1;
    }
    // Both answers were met many times, a repeated notice among them: the comparison said something each way.
    expect(repeatedSeen).toBeGreaterThan(100);
    expect(repeatedSeen).toBeLessThan(2900);
    expect(othersSeen).toBeGreaterThan(20);
    expect(callsSeen).toBeGreaterThan(20);
  });

  it('who wrote what: a person, the host, a local-only record, a pruned tool result', () => {
    const transcript = index();
    transcript.push(user('u1'), 1, 100);
    transcript.push(user('h1', 'context', { origin: 'host' }), 2, 100);
    transcript.push(user('l1', 'local', { local_only: true }), 3, 100);
    transcript.push(result('t1', 'c1', { content: `${LEGACY_PRUNE_MARKER}3 lines]` }), 4, 100);
    transcript.push(result('t2', 'c2', { content: 'not pruned' }), 5, 100);
    transcript.push({ role: 'assistant', id: 'x', content: `${LEGACY_PRUNE_MARKER}…` }, 6, 100);
    const at = (id: string) => rows(transcript).findIndex((row) => row.id === id);
    expect(['u1', 'h1', 'l1', 't1'].map((id) => transcript.seenByPerson(at(id)))).toEqual([true, false, false, true]);
    expect(['u1', 'h1', 'l1'].map((id) => transcript.typedByPerson(at(id)))).toEqual([true, false, true]);
    expect(['t1', 't2', 'x'].map((id) => transcript.pruned(at(id)))).toEqual([true, false, false]);
  });

  it('what a person typed: raw_content, else the text, from the kept message or its preview', () => {
    const kept = index();
    const previews = index({ messages: false, previews: true });
    for (const transcript of [kept, previews]) {
      transcript.push(user('u1', 'sent', { raw_content: 'typed' }), 1, 100);
      transcript.push(user('u2', 'plain'), 2, 100);
      transcript.push(
        { role: 'user', id: 'u3', content: [{ type: 'text', text: 'parts' }] as unknown as string },
        3,
        100,
      );
      transcript.push({ role: 'assistant', id: 'a1', content: 'answer' }, 4, 100);
      transcript.retract(['u2']);
    }
    expect([0, 1].map((at) => kept.typedText(at))).toEqual(['typed', undefined]);
    expect([0, 1, 2].map((at) => previews.typedText(at))).toEqual(['typed', undefined, undefined]);
    expect(() => index({ messages: false, previews: false }).typedText(0)).toThrow(/kept no previews/);
    expect(() => previews.kept).toThrow(/kept only an index/);
  });

  it('after thousands of messages rewritten, every message still has its own calls (the dead ones compacted away)', () => {
    const transcript = index({ messages: false, previews: false });
    transcript.push(user('u1'), 1, 100);
    transcript.push(
      calling('keep', [
        ['k1', 'bash', '{}'],
        ['k2', 'grep', ''],
      ]),
      2,
      100,
    );
    for (let round = 0; round < 700; round += 1)
      transcript.upsert(
        calling('busy', [
          [`b${round}a`, 'ls', '{}'],
          [`b${round}b`, 'cat', 'x'],
        ]),
        3 + round,
        100,
      );
    transcript.push(calling('late', [['l1', 'ls', '{}']]), 1000, 100);
    const expected = [
      ['u1', []],
      [
        'keep',
        [
          ['k1', 'bash', 'object'],
          ['k2', 'grep', 'none'],
        ],
      ],
      [
        'busy',
        [
          ['b699a', 'ls', 'object'],
          ['b699b', 'cat', 'other'],
        ],
      ],
      ['late', [['l1', 'ls', 'object']]],
    ];
    expect(rows(transcript).map(({ id, calls }) => [id, calls])).toEqual(expected);
    // Messages with many calls taken out: compacted when the transcript is cut.
    for (let round = 0; round < 600; round += 1)
      transcript.push(
        calling(`gone${round}`, [
          [`g${round}a`, 'ls', '{}'],
          [`g${round}b`, 'ls', '{}'],
        ]),
        2000 + round,
        100,
      );
    transcript.retract(Array.from({ length: 600 }, (_, round) => `gone${round}`));
    expect(rows(transcript).map(({ id, calls }) => [id, calls])).toEqual(expected);
  });
});
