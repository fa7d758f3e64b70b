import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import type { IndexRecord } from '../../../src/index.js';
import { openLogSession } from '../../../src/store/open-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { drain } from '../../support/drain.js';
import { RecordIndex } from '../../support/sessions/record-index.js';
import { raw } from '../../support/sessions/payload-rules.js';

/**
 * A session Reasonix refuses for a record key its transcript holds twice (found in the whole transcript, not at
 * one event): `records()` gives the records before the message that repeats the key and then throws the refusal,
 * as the records read since no cursor give them before they throw it — never that message's records (a tool
 * result paired with the call another result answers), nor those after it.
 */
const call = (id: string) =>
  `{"role":"assistant","id":"${id}","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}]}`;
const result = (id: string) => `{"role":"tool","id":"${id}","tool_call_id":"c1","name":"bash","content":"out ${id}"}`;
const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
const said = (id: string, text: string) => complete(`{"role":"user","id":"${id}","content":"${text}"}`);
const answered = [complete(call('a1')), complete(result('t1'))];

const cases: [string, EventToWrite[][]][] = [
  ['a second result of one call, in a batch of its own', [answered, [complete(result('t2'))]]],
  ['a second result of one call, then more said', [answered, [complete(result('t2'))], [said('u9', 'after')]]],
  ['a second result in the batch of the first', [[...answered, complete(result('t2')), said('u9', 'after')]]],
  ['a second call of one id, with its result', [[...answered, complete(call('a2')), complete(result('t2'))]]],
  ['a message id completed twice in one batch', [[said('u1', 'one'), said('u1', 'again'), said('u2', 'later')]]],
  ['a message id completed twice, a batch each', [[said('u1', 'one')], [said('u1', 'again')], [said('u2', 'later')]]],
];

const texts = (records: readonly IndexRecord[]) => records.map((record) => JSON.stringify(record)).sort();

describe('records() stops where Reasonix refuses a record key held twice, as recordsSince() does', () => {
  it.each(cases)('%s', async (_, batches) => {
    const dir = await copySession(fixture('plain-chat').dir);
    for (const events of batches) await appendBatch(dir, events);
    const session = await openLogSession(dir);
    const whole = await drain(session.records());
    const index = new RecordIndex();
    const since = await drain(session.recordsSince());
    for (const piece of since.items) index.apply(piece.records);
    expect((whole.error as { code?: string }).code).toMatch(/^RX_/);
    expect((since.error as { code?: string }).code).toBe((whole.error as { code?: string }).code);
    expect(texts(whole.items)).toEqual(texts([...index.records.values()]));
    // Nothing of the message that repeats the key, or of what follows it.
    expect(whole.items.map((record) => JSON.stringify(record)).join('\n')).not.toMatch(/out t2|again|later/);
  });
});
