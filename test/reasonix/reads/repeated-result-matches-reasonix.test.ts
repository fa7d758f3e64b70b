import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Reasonix keys the transcript's records by tool call and refuses a session whose transcript, as the
 * whole log leaves it, answers one call twice: whatever event wrote the second result, and not when
 * a later event takes it back or a checkpoint holds it (a checkpoint changes only the model's list).
 * Each case appends batches to a session Reasonix wrote; rxstore's verdict must be Reasonix's.
 */
const source = fixture('plain-chat');
const system = '{"role":"system","id":"s","content":"sys"}';
const call = (id = 'a1') =>
  `{"role":"assistant","id":"${id}","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}]}`;
const result = (id: string, extra = '') =>
  `{"role":"tool","id":"${id}","tool_call_id":"c1","name":"bash","content":"out ${id}"${extra}}`;
const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
const answered = [complete(call()), complete(result('t1'))];

const cases: [string, EventToWrite[][], boolean][] = [
  ['a second result by message/complete', [answered, [complete(result('t2'))]], true],
  [
    'a second result by message/complete, taken back later',
    [answered, [complete(result('t2'))], [raw('message/retract', '{"messageIds":["t2"]}')]],
    false,
  ],
  ['a second result by message/upsert', [answered, [raw('message/upsert', `{"message":${result('t2')}}`)]], true],
  [
    'two results in one history/replace',
    [[raw('history/replace', `{"messages":[${system},${call()},${result('t1')},${result('t2')}]}`)]],
    true,
  ],
  [
    'two results in one history/replace, one local-only',
    [
      [
        raw(
          'history/replace',
          `{"messages":[${system},${call()},${result('t1')},${result('t2', ',"local_only":true')}]}`,
        ),
      ],
    ],
    false,
  ],
  [
    'two results in a history/replace that a later one replaces',
    [
      [raw('history/replace', `{"messages":[${system},${call()},${result('t1')},${result('t2')}]}`)],
      [raw('history/replace', `{"messages":[${system},${call()},${result('t1')}]}`)],
    ],
    false,
  ],
  [
    'two results in a model/context-replace checkpoint',
    [[raw('model/context-replace', `{"messages":[${system},${call()},${result('t1')},${result('t2')}]}`)]],
    false,
  ],
  ['two calls with one id, each with its result', [[...answered, complete(call('a2')), complete(result('t2'))]], true],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('a tool call answered twice, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s', async (_, batches, refused) => {
    const dir = await copySession(source.dir);
    for (const events of batches) await appendBatch(dir, events);
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code).toBe(refused ? 1 : 0);
    if (refused) expect(run.stderr).toMatch(/duplicate (transcript record "tool:c1"|record id)/);
    expect(read.status).toBe(refused ? 'damaged' : 'ok');
    if (refused) expect(read.refusal?.message).toContain('duplicate transcript record "tool:c1"');
  });
});
