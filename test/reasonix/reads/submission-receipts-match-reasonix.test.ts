import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * A submission receipt (`submission/accepted`, optional) is checked by Reasonix 1.38.11 after it decodes it: a
 * session, submission, fingerprint, message and turn id each present, the turn its batch's, and no second receipt
 * for one session and submission id that differs from the first. Each case appends batches to a session Reasonix
 * wrote; rxstore's verdict, and its words, must be Reasonix's.
 */
const source = fixture('plain-chat');
const receipt = (fields: Record<string, unknown>): EventToWrite => ({
  ...raw(
    'submission/accepted',
    JSON.stringify({
      fingerprintVersion: 1,
      sessionId: source.id,
      submissionId: 's1',
      fingerprint: 'f',
      turnId: 'p-turn',
      messageId: 'm1',
      ...fields,
    }),
  ),
  optional: true,
});

/** Each case: what it is, its batches (events and turn id), and Reasonix's refusal (undefined: it goes on). */
const cases: [string, [EventToWrite[], string | undefined][], string | undefined][] = [
  ['a whole receipt', [[[receipt({})], 'p-turn']], undefined],
  ['a receipt naming another session', [[[receipt({ sessionId: 'other' })], 'p-turn']], undefined],
  ['an empty fingerprint', [[[receipt({ fingerprint: '' })], 'p-turn']], 'invalid submission receipt'],
  ['no session id', [[[receipt({ sessionId: '' })], 'p-turn']], 'invalid submission receipt'],
  ['no message id', [[[receipt({ messageId: undefined })], 'p-turn']], 'invalid submission receipt'],
  ['a turn other than its batch’s', [[[receipt({ turnId: 'other' })], 'p-turn']], 'invalid submission receipt'],
  ['in a batch with no turn', [[[receipt({})], undefined]], 'invalid submission receipt'],
  [
    'the same receipt twice',
    [
      [[receipt({})], 'p-turn'],
      [[receipt({})], 'p-turn'],
    ],
    undefined,
  ],
  [
    'a second receipt for the submission with another fingerprint',
    [
      [[receipt({})], 'p-turn'],
      [[receipt({ fingerprint: 'g' })], 'p-turn'],
    ],
    'conflicting submission receipt',
  ],
  [
    'a second receipt for another submission',
    [
      [[receipt({})], 'p-turn'],
      [[receipt({ submissionId: 's2', messageId: 'm2', fingerprint: 'g' })], 'p-turn'],
    ],
    undefined,
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('submission receipts, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s', async (_, batches, refusal) => {
    const dir = await copySession(source.dir);
    for (const [events, turnId] of batches) await appendBatch(dir, events, turnId === undefined ? {} : { turnId });
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code, run.stderr).toBe(refusal === undefined ? 0 : 1);
    expect(read.status).toBe(refusal === undefined ? 'ok' : 'damaged');
    if (refusal === undefined) return;
    expect(run.stderr).toContain(`error: ${refusal}`);
    expect(read.refusal?.message).toMatch(new RegExp(`: ${refusal}$`));
  });
});
