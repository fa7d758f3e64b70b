import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readLogBatches } from '../../../src/codec/read-log.js';
import { migrateJsonlToV4 } from '../../../src/migrate/jsonl-to-v4.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { startMockModel } from './mock-model.js';
import { listSessionDirs, runReasonix } from './reasonix.js';

/**
 * A state root under `base` holding one JSONL transcript `t1.jsonl`, a line a message (an object written as
 * `JSON.stringify` writes it, a string as it is), and the workspace it belongs to.
 */
export async function transcriptIn(base: string, messages: readonly (object | string)[]) {
  const stateRoot = join(base, 'state');
  const workspace = join(base, 'ws');
  const sessions = join(stateRoot, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
  await mkdir(workspace, { recursive: true });
  await mkdir(sessions, { recursive: true });
  const transcript = join(sessions, 't1.jsonl');
  const line = (message: object | string) => (typeof message === 'string' ? message : JSON.stringify(message));
  await writeFile(transcript, messages.map((message) => `${line(message)}\n`).join(''));
  return { stateRoot, workspace, transcript };
}

/** `reasonix run --resume t1` in the state root `transcriptIn` made, against a mock model that answers once. */
export async function resumeTranscript(stateRoot: string, workspace: string) {
  const mock = await startMockModel([{ text: 'Going on.' }]);
  try {
    return await runReasonix({ home: stateRoot, cwd: workspace, args: ['run', '--resume', 't1', 'And now?'], mock });
  } finally {
    await mock.close();
  }
}

/** The message events' payloads of a v4 log, in order. */
export async function messagePayloads(sessionDir: string): Promise<string[]> {
  const payloads: string[] = [];
  for await (const item of readLogBatches(join(sessionDir, 'events.frames')))
    if (item.type === 'batch')
      for (const event of item.batch.events)
        if (event.kind === 'message/complete' && event.payload) payloads.push(event.payload.toString('utf8'));
  return payloads;
}

/**
 * Checks that Reasonix and rxstore migrate one transcript of `messages` alike, each in a state root of its own
 * under `base`: Reasonix resumes it and takes a turn, rxstore says it would (ok), and the message payloads rxstore
 * stores are byte for byte those Reasonix stored (its session's first messages: the turn it took follows them).
 */
export async function expectMigratedAsReasonix(base: string, messages: readonly (object | string)[]): Promise<void> {
  const theirs = await transcriptIn(join(base, 'reasonix'), messages);
  const run = await resumeTranscript(theirs.stateRoot, theirs.workspace);
  expect(run.code, run.stderr).toBe(0);
  const [migrated] = listSessionDirs(theirs.stateRoot);
  const ours = await transcriptIn(join(base, 'rxstore'), messages);
  expect((await readJsonlSession(ours.transcript)).status).toBe('ok');
  const report = await migrateJsonlToV4(ours.transcript, { stateRoot: ours.stateRoot, cwd: ours.workspace });
  const written = await messagePayloads(report.targetDir);
  expect(written).toHaveLength(messages.length);
  expect((await messagePayloads(migrated!)).slice(0, messages.length)).toEqual(written);
}
