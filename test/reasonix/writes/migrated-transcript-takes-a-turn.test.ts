import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../../../src/migrate/jsonl-to-v4.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A v0.x transcript's tool call with an empty name and empty arguments: Reasonix 1.38.11 migrates it
 * and opens it, then refuses every new turn in it; rxstore says so of the transcript, and what
 * rxstore migrates it to takes the turn.
 */
const lines = [
  { role: 'system', content: 'You are a legacy assistant.' },
  { role: 'user', content: 'What files are here?' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_v0', name: '', arguments: '' }] },
  { role: 'tool', tool_call_id: 'call_v0', content: 'README.md\n' },
  { role: 'assistant', content: 'There is one file: README.md.' },
];
const refusal = 'transcript gate: tool arguments must be a JSON object at message 2';

async function transcriptIn(base: string): Promise<{ stateRoot: string; workspace: string; transcript: string }> {
  const stateRoot = join(base, 'state');
  const workspace = join(base, 'ws');
  const sessions = join(stateRoot, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
  await mkdir(workspace, { recursive: true });
  await mkdir(sessions, { recursive: true });
  const transcript = join(sessions, 'v0-call.jsonl');
  await writeFile(transcript, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return { stateRoot, workspace, transcript };
}

async function turn(stateRoot: string, workspace: string, id: string) {
  const mock = await startMockModel([{ text: 'Going on.' }]);
  try {
    return await runReasonix({ home: stateRoot, cwd: workspace, args: ['run', '--resume', id, 'And now?'], mock });
  } finally {
    await mock.close();
  }
}

describe.skipIf(!reasonixBinary())(
  reasonixTitle('a transcript Reasonix would migrate into a session it takes no turn in'),
  () => {
    it.concurrent('is refused a new turn by Reasonix, as rxstore says of the transcript', async () => {
      const { stateRoot, workspace, transcript } = await transcriptIn(
        await realpath(await tempDir('rxstore-v0-call-')),
      );
      const read = await readJsonlSession(transcript);
      expect(read.status).toBe('turn-refused');
      expect(read.projection.newTurn).toEqual({ accepted: false, reason: refusal, index: 2 });
      const run = await turn(stateRoot, workspace, 'v0-call');
      expect(run.stderr.split('\n')).toContain(`error: ${refusal}`);
      expect(run.code).toBe(1);
      await rm(stateRoot, { recursive: true, force: true });
    });

    it.concurrent('takes a new turn once rxstore migrated it, the transcript kept as it was', async () => {
      const { stateRoot, workspace, transcript } = await transcriptIn(
        await realpath(await tempDir('rxstore-v0-call-')),
      );
      const report = await migrateJsonlToV4(transcript, { stateRoot, cwd: workspace });
      expect(report.warnings.join('\n')).toContain(refusal);
      const migrated = await readSession(report.targetDir);
      expect(migrated.status).toBe('ok');
      expect(migrated.projection.transcript.map(({ message }) => message.tool_calls ?? null)[2]).toEqual([
        { id: 'call_v0', name: '', arguments: '' },
      ]);
      const run = await turn(stateRoot, workspace, report.targetId);
      expect(
        run.stderr.split('\n').filter((line) => line.startsWith('error: ')),
        run.stderr,
      ).toEqual([]);
      expect(run.code).toBe(0);
      await rm(stateRoot, { recursive: true, force: true });
    });
  },
);
