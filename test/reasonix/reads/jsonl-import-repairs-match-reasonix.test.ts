import { realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../../../src/migrate/jsonl-to-v4.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { messagePayloads, resumeTranscript, transcriptIn } from '../../support/reasonix/jsonl-transcript.js';
import { listSessionDirs, reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * Reasonix 1.38.11 imports a JSONL transcript into a v4 session before it resumes it, and its import repairs
 * the transcript (docs/format.md §10.1): tool-call arguments that are not JSON are closed as a cut-off document
 * (else `{}`), an empty call name is taken from its result, and a call that no result right after it answers
 * gets a stand-in result there, so that a result met later (after another message, or before its call) is a
 * second record for the call and the session is refused. Each transcript is resumed by the real binary and read
 * by rxstore: the verdicts agree (opens and takes a turn, takes none, or is refused), and where Reasonix opens
 * it, rxstore's migration stores the very messages Reasonix's import stored.
 */
const system = { role: 'system', content: 'You are terse.' };
const user = { role: 'user', content: 'hi' };
const later = { role: 'user', content: 'wait' };
const answer = { role: 'assistant', content: 'done' };
const calling = (...calls: [id: string, name: string, args: string][]) => ({
  role: 'assistant',
  content: '',
  tool_calls: calls.map(([id, name, args]) => ({ id, name, arguments: args })),
});
const result = (id: string, name?: string) => ({
  role: 'tool',
  tool_call_id: id,
  content: `out of ${id}`,
  ...(name ? { name } : {}),
});
const receipt = {
  role: 'assistant',
  local_only: true,
  decision_receipt: { id: 'd1', kind: 'approval', tool: 'bash', outcome: 'approved' },
};
const withArguments = (args: string) => [system, user, calling(['c1', 'bash', args]), result('c1'), answer];

/** What Reasonix said: the turn taken, no new turn (its transcript gate), or the session refused on opening. */
type Verdict = { takes: 'turn' } | { takes: 'no turn' | 'nothing'; error: string };
const turn: Verdict = { takes: 'turn' };
const notAnObject: Verdict = {
  takes: 'no turn',
  error: 'transcript gate: tool arguments must be a JSON object at message 2',
};
const twice = (call: string): Verdict => ({ takes: 'nothing', error: `duplicate transcript record "tool:${call}"` });

const cases: { case: string; messages: object[]; reasonix: Verdict }[] = [
  { case: 'arguments cut after a key are closed with null', messages: withArguments('{"a":'), reasonix: turn },
  { case: 'an open object is closed', messages: withArguments('{'), reasonix: turn },
  { case: 'an open string is closed', messages: withArguments('{"a":"b'), reasonix: turn },
  { case: 'a trailing backslash is dropped', messages: withArguments('{"a":"x\\'), reasonix: turn },
  { case: 'a dangling comma is dropped', messages: withArguments('{"a":1,'), reasonix: turn },
  { case: 'nested open brackets are closed', messages: withArguments('{"a":[1,{"b":'), reasonix: turn },
  { case: 'an object followed by junk becomes {}', messages: withArguments('{}x'), reasonix: turn },
  { case: 'two objects become {}', messages: withArguments('{"a":1}\n{"b":2}'), reasonix: turn },
  { case: 'text that is not JSON becomes {}', messages: withArguments('not json'), reasonix: turn },
  { case: 'white space alone becomes {}', messages: withArguments('   '), reasonix: turn },
  { case: 'an object with white space around it is kept', messages: withArguments(' {"a":1} '), reasonix: turn },
  { case: 'empty arguments are kept, and refused', messages: withArguments(''), reasonix: notAnObject },
  { case: 'a JSON list is kept, and refused', messages: withArguments('[]'), reasonix: notAnObject },
  { case: 'a cut list is closed, and refused', messages: withArguments('[1,'), reasonix: notAnObject },
  { case: 'null is kept, and refused', messages: withArguments('null'), reasonix: notAnObject },
  { case: 'a JSON string is kept, and refused', messages: withArguments('"s"'), reasonix: notAnObject },
  { case: 'a number is kept, and refused', messages: withArguments('1'), reasonix: notAnObject },
  {
    case: 'a result after a user message following its call',
    messages: [system, user, calling(['c1', 'bash', '{}']), later, result('c1'), answer],
    reasonix: twice('c1'),
  },
  {
    case: 'a result after an assistant message following its call',
    messages: [system, user, calling(['c1', 'bash', '{}']), answer, result('c1'), answer],
    reasonix: twice('c1'),
  },
  {
    case: 'a result before its call',
    messages: [system, user, result('c1'), calling(['c1', 'bash', '{}']), answer],
    reasonix: twice('c1'),
  },
  {
    case: 'a result after a local-only message following its call',
    messages: [
      system,
      user,
      calling(['c1', 'bash', '{}']),
      { role: 'assistant', content: 'partial', local_only: true },
      result('c1'),
      answer,
    ],
    reasonix: twice('c1'),
  },
  {
    case: 'a local-only decision receipt between a call and its result joins the call',
    messages: [system, user, calling(['c1', 'bash', '{}']), receipt, result('c1'), answer],
    reasonix: turn,
  },
  {
    case: 'a local-only decision receipt after a result joins the call',
    messages: [system, user, calling(['c1', 'bash', '{}']), result('c1'), receipt, answer],
    reasonix: turn,
  },
  {
    case: "the second call's result after the answer",
    messages: [
      system,
      user,
      calling(['c1', 'bash', '{}'], ['c2', 'bash', '{}']),
      result('c1'),
      answer,
      result('c2'),
      answer,
    ],
    reasonix: twice('c2'),
  },
  {
    case: 'one id on two calls: the second is answered by place',
    messages: [system, user, calling(['c1', 'bash', '{}'], ['c1', 'bash', '{}']), result('c1'), answer],
    reasonix: twice('c1'),
  },
  {
    case: 'results in another order than their calls',
    messages: [system, user, calling(['c1', 'bash', '{}'], ['c2', 'bash', '{}']), result('c2'), result('c1'), answer],
    reasonix: turn,
  },
  {
    case: 'a call without a result gets a stand-in',
    messages: [system, user, calling(['c1', 'bash', '{}'], ['c2', 'bash', '{}']), result('c1'), answer],
    reasonix: turn,
  },
  {
    case: 'a call answered by a result of an unknown call gets a stand-in',
    messages: [system, user, calling(['c1', 'bash', '{}']), result('c9'), answer],
    reasonix: turn,
  },
  {
    case: 'a call followed by a user message gets a stand-in',
    messages: [system, user, calling(['c1', 'bash', '{}']), later, answer],
    reasonix: turn,
  },
  {
    case: 'a call that ends the transcript gets a stand-in',
    messages: [system, user, calling(['c1', 'bash', '{}'])],
    reasonix: turn,
  },
  {
    case: 'a call without a name takes its result’s',
    messages: [system, user, calling(['c1', '', '{}']), result('c1', 'bash'), answer],
    reasonix: turn,
  },
  {
    case: 'a call without an id is answered by place',
    messages: [system, user, calling(['', 'bash', '{}']), result(''), answer],
    reasonix: turn,
  },
];

describe.skipIf(!reasonixBinary())(reasonixTitle("a JSONL transcript as Reasonix's import repairs it"), () => {
  it.concurrent.each(cases)('$case', async (each) => {
    const base = await realpath(await tempDir('rxstore-import-repairs-'));
    const theirs = await transcriptIn(join(base, 'reasonix'), each.messages);
    const run = await resumeTranscript(theirs.stateRoot, theirs.workspace);
    const said = `${run.stdout}\n${run.stderr}`.split('\n').find((line) => line.startsWith('error: ')) ?? '';
    const ours = await transcriptIn(join(base, 'rxstore'), each.messages);
    const read = await readJsonlSession(ours.transcript);
    // The table says what the binary said; rxstore says the same.
    if (each.reasonix.takes === 'turn') {
      expect(said, run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(read.status).toBe('ok');
    } else {
      expect(said).toContain(each.reasonix.error);
      expect(run.code).toBe(1);
      expect(read.status).toBe(each.reasonix.takes === 'no turn' ? 'turn-refused' : 'damaged');
      const problem = read.problems.find((found) => found.severity === 'error');
      expect(problem?.message).toContain(each.reasonix.error);
    }
    if (each.reasonix.takes === 'nothing') {
      await expect(
        migrateJsonlToV4(ours.transcript, { stateRoot: ours.stateRoot, cwd: ours.workspace }),
      ).rejects.toThrow(each.reasonix.error);
    } else {
      // What Reasonix's import stored is what rxstore's migration stores: the turn Reasonix took follows it.
      const [migrated] = listSessionDirs(theirs.stateRoot);
      const report = await migrateJsonlToV4(ours.transcript, { stateRoot: ours.stateRoot, cwd: ours.workspace });
      const written = await messagePayloads(report.targetDir);
      expect(report.messages).toBe(written.length);
      const stored = await messagePayloads(migrated!);
      expect(stored.slice(0, written.length)).toEqual(written);
      // Then the turn asked for, which starts with the host's context: the import stored no more than rxstore's.
      expect(JSON.parse(stored[written.length]!).message.origin).toBe('host');
    }
    await rm(base, { recursive: true, force: true });
  });
});
