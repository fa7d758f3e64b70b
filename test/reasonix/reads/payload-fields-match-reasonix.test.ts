import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * The payload fields rxstore took from Reasonix's source, where the binary's own types differ: a run's
 * recovery status (strict, eleven fields), a legacy import's source (five), files a tool presented (a path
 * and a description each), and a submission receipt (read leniently, its digests one string). Each case
 * appends one batch to a session Reasonix wrote; rxstore's verdict must be Reasonix's.
 */
const source = fixture('plain-chat');
const recovery =
  '{"state":"waiting","call_id":"c1","attempt_id":"a1","requires_user_decision":false,"read_only":true,"phase":"p","reason":"r","next_attempt_at":1,"waited_ms":2,"wait_budget_ms":3,"waiting":false}';
const legacy = (extra: string) =>
  `{"source":{"path":"/tmp/x.jsonl","size":10,"sha256":"ab"${extra}},"messages":[{"role":"user","id":"l-u1","content":"hi"},{"role":"assistant","id":"l-a1","content":"hello"}]}`;
const call = (extra: string) => `{"id":"p-c1","name":"bash","args":"{}"${extra}}`;
const receipt = (extra: string) =>
  `{"fingerprintVersion":1,"sessionId":"${source.id}","submissionId":"s1","fingerprint":"f","turnId":"p-turn","messageId":"m1"${extra}}`;
const submission = (extra: string) => ({ ...raw('submission/accepted', receipt(extra)), optional: true });

/** Each case: what it is, the events appended, whether Reasonix opens the session. */
const cases: [string, EventToWrite[], boolean][] = [
  ['a recovery status with its eleven fields', [raw('runtime/recovery', recovery)], true],
  ['a recovery status in capitals', [raw('runtime/recovery', '{"STATE":"waiting","Call_Id":"c1"}')], true],
  ['a recovery status with a key it does not have', [raw('runtime/recovery', '{"callId":"c1"}')], false],
  ['a recovery status with a string for a bool', [raw('runtime/recovery', '{"waiting":"true"}')], false],
  [
    'a legacy import whose source has its five fields',
    [raw('legacy/import', legacy(',"version":"v1","legacyHeadId":"h"'))],
    true,
  ],
  [
    'a legacy import whose source has a creation time',
    [raw('legacy/import', legacy(',"createdAt":"2024-01-01T00:00:00Z"'))],
    false,
  ],
  [
    'a presented file with a path and a description',
    [raw('tool/call', call(',"presentedFiles":[{"path":"a.txt","description":"d"}]'))],
    true,
  ],
  [
    'a presented file with a key it does not have',
    [raw('tool/call', call(',"presentedFiles":[{"path":"a.txt","bogus":1}]'))],
    false,
  ],
  ['a presented file whose path is a number', [raw('tool/call', call(',"presentedFiles":[{"path":1}]'))], false],
  ['a receipt whose digests are one string', [submission(',"acceptedAttachmentDigests":"d1,d2"')], true],
  ['a receipt with a key it does not have', [submission(',"bogus":1')], true],
  ['a receipt whose digests are a list', [submission(',"acceptedAttachmentDigests":["d1"]')], false],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle('payload fields as the binary has them, judged by Reasonix 1.38.11'),
  () => {
    it.concurrent.each(cases)('%s', async (_, events, opens) => {
      const dir = await copySession(source.dir);
      await appendBatch(dir, events, { turnId: 'p-turn' });
      const read = await readSession(dir);
      const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
      await rm(run.home, { recursive: true, force: true });
      expect(run.code, run.stderr).toBe(opens ? 0 : 1);
      expect(read.status).toBe(opens ? 'ok' : 'damaged');
    });
  },
);
