import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoveryCheckpointPath } from '../../../src/session/reading/recovery-cache.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { startMockModel, type MockReply } from '../../support/reasonix/mock-model.js';
import { listSessionDirs, reasonixBinary, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A provider that names a tool call as it named one in an earlier turn (`call_X` both times) makes Reasonix 1.38.11
 * write a session it then refuses to open: its transcript holds the record `tool:call_X` twice. Reasonix wrote a
 * recovery checkpoint past both, and still refuses: it meets the repeated record in the transcript the checkpoint
 * holds, so rxstore must not say Reasonix goes on from it.
 */
async function turn(home: string, cwd: string, args: string[], replies: MockReply[]) {
  const mock = await startMockModel(replies);
  try {
    return await runReasonix({ home, cwd, args, mock, permissionMode: 'danger-full-access' });
  } finally {
    await mock.close();
  }
}

const callX = (output: string): MockReply => ({
  toolCalls: [{ id: 'call_X', name: 'bash', arguments: { command: `echo ${output}` } }],
});

describe.skipIf(!reasonixBinary())(
  'a tool call id a provider gives again in a later turn, with a checkpoint past it',
  () => {
    it('is refused by Reasonix and by rxstore, with no recovery checkpoint to go on from', async () => {
      const home = await tempDir('rxstore-call-again-');
      const workspace = await tempDir('rxstore-call-again-ws-');
      const first = await turn(home, workspace, ['run', 'first'], [callX('one'), { text: 'first answer' }]);
      expect(first.code, first.stderr).toBe(0);
      const [dir] = listSessionDirs(home);
      const id = basename(dir!);
      const second = await turn(home, workspace, ['run', '--resume', id, 'second'], [callX('two'), { text: 'two' }]);
      expect(second.code, second.stderr).toBe(0);
      expect(existsSync(recoveryCheckpointPath(dir!, id))).toBe(true);

      const read = await readSession(dir!);
      expect(read.status).toBe('damaged');
      expect(read.refusal?.message).toContain('duplicate transcript record "tool:call_X"');
      expect(read.goesOnFrom).toBeUndefined();
      const inspected = JSON.parse((await runCli(['inspect', dir!, '--json'])).stdout) as { goesOnFrom: unknown };
      expect(inspected.goesOnFrom).toBeNull();

      const third = await turn(home, workspace, ['run', '--resume', id, 'third'], [{ text: 'third' }]);
      expect(third.code).toBe(1);
      expect(third.stderr).toContain('duplicate transcript record "tool:call_X"');
    }, 120_000);
  },
);
