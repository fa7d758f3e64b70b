// A session whose every batch verifies, but whose transcript holds a record key twice, is refused by
// Reasonix as a whole (`duplicate transcript record`): salvage stops trusting the log at the batch that
// wrote the second key, keeps the batches before it and recovers the messages from there on, leaving out
// the one that repeats a key, so that Reasonix resumes what it writes.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { salvageSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

const source = fixture('plain-chat');

describe.skipIf(!reasonixBinary())(reasonixTitle('salvage of a session holding a record key twice'), () => {
  it('keeps the batches before the one that wrote it, and Reasonix resumes the salvage', async () => {
    const dir = await copySession(source.dir);
    const before = (await readSession(dir)).batches;
    const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
    await appendBatch(dir, [complete('{"role":"user","id":"q1","origin":"user","content":"kept question"}')]);
    await appendBatch(dir, [
      complete('{"role":"assistant","id":"u","content":"x","local_only":true,"read_pause":{}}'),
      complete('{"role":"assistant","id":"u:notice:0","content":"kept answer"}'),
    ]);
    expect((await readSession(dir)).refusal?.message).toContain('duplicate transcript record "m:u:notice:0"');
    const log = await readFile(join(dir, 'events.frames'));
    const report = await salvageSession(dir);
    expect(report.damage?.code).toBe('RX_STRICT_PAYLOAD');
    expect(report.batchesKept).toBe(before + 1);
    expect(report.recoveredMessages).toBeGreaterThan(0);
    // The original is left as it was.
    expect(await readFile(join(dir, 'events.frames'))).toEqual(log);
    expect((await readSession(report.newDir)).status).toBe('ok');
    const resumed = await resumeWithReasonix(report.newDir, { workspace: source.workspace, prompt: 'Go on.' });
    try {
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const sent = resumed.requests[0]!.messages.map((message) => message.content);
      expect(sent).toEqual(expect.arrayContaining(['kept question', 'kept answer']));
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
