import { existsSync } from 'node:fs';
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportRefusedError } from '../../../src/errors/index.js';
import { exportSession } from '../../../src/migrate/export-session.js';
import { goJson } from '../../../src/codec/go-json/go-json.js';
import { canonicalTranscript } from '../../../src/session/replay/views.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { openSession } from '../../../src/store/open-session.js';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { resumeTranscript } from '../../support/reasonix/jsonl-transcript.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A v4 session whose tool result comes after a user message that followed its call: Reasonix 1.38.11 opens it
 * and takes a turn in it, but a JSONL transcript of it is refused (its import adds a stand-in result after the
 * call, and the real one is then a second record for the call). Moving the result would change the conversation,
 * so `rxstore export` refuses such a session (`RX_EXPORT_REFUSED`) rather than write a transcript Reasonix
 * refuses; with the result right after its call, the export is written and Reasonix resumes it.
 */
const source = fixture('plain-chat');
const call = {
  role: 'assistant',
  id: 'rx-late-call',
  content: '',
  tool_calls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
};
const between = { role: 'user', id: 'rx-late-user', origin: 'user', content: 'wait' };
const result = { role: 'tool', id: 'rx-late-result', tool_call_id: 'c1', name: 'bash', content: 'out' };
const answer = { role: 'assistant', id: 'rx-late-answer', content: 'done' };

async function sessionWith(messages: object[]): Promise<string> {
  const dir = await copySession(source.dir);
  await appendBatch(
    dir,
    messages.map((message) => ({ kind: 'message/complete', payload: { message } })),
  );
  return dir;
}

/** A state root for a transcript resumed by id from `source.workspace`, and where its transcript `t1.jsonl` goes. */
async function transcriptPlace(): Promise<{ stateRoot: string; transcript: string }> {
  const stateRoot = join(await realpath(await tempDir('rxstore-export-late-')), 'state');
  const sessions = join(stateRoot, 'projects', workspaceSlug(source.workspace, 'linux'), 'sessions');
  await mkdir(sessions, { recursive: true });
  return { stateRoot, transcript: join(sessions, 't1.jsonl') };
}

describe.skipIf(!reasonixBinary())(reasonixTitle('export of a session whose tool result comes late'), () => {
  it.concurrent('is refused, where Reasonix would refuse the transcript written', async () => {
    const dir = await sessionWith([call, between, result, answer]);
    // Reasonix goes on with the session itself.
    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Go on.' });
    await rm(resumed.home, { recursive: true, force: true });
    expect(resumed.code, resumed.stderr).toBe(0);
    const read = await readSession(dir);
    expect(read.status).toBe('ok');

    const place = await transcriptPlace();
    // Opened or read whole, to a file or as text: refused, and nothing is written.
    const exports = [
      async () => exportSession(await openSession(dir), { to: place.transcript, format: 'jsonl' }),
      () => exportSession(read, { to: place.transcript, format: 'jsonl' }),
      () => exportSession(read, { format: 'jsonl' }),
    ];
    for (const exported of exports) {
      const refused = await exported().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ExportRefusedError);
      expect((refused as ExportRefusedError).message).toContain('duplicate transcript record "tool:c1"');
    }
    expect(existsSync(place.transcript)).toBe(false);

    // What it would have written (the session's messages, a line each): Reasonix refuses it.
    const lines = [...canonicalTranscript(read.projection)].map(({ message }) => `${goJson(message)}\n`);
    await writeFile(place.transcript, lines.join(''));
    const run = await resumeTranscript(place.stateRoot, source.workspace);
    expect(run.stderr).toContain('duplicate transcript record "tool:c1"');
    expect(run.code).toBe(1);
    await rm(place.stateRoot, { recursive: true, force: true });
  });

  it.concurrent('is written when the result comes right after its call, and Reasonix resumes it', async () => {
    const dir = await sessionWith([call, result, between, answer]);
    const place = await transcriptPlace();
    const report = await exportSession(await openSession(dir), { to: place.transcript, format: 'jsonl' });
    expect(report.files).toContain(place.transcript);
    const run = await resumeTranscript(place.stateRoot, source.workspace);
    expect(
      run.stderr.split('\n').filter((line) => line.startsWith('error: ')),
      run.stderr,
    ).toEqual([]);
    expect(run.code).toBe(0);
    await rm(place.stateRoot, { recursive: true, force: true });
  });
});
