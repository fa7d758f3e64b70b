import { mkdir, rm, truncate, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logOf } from '../../support/faults/faults.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { listSessionDirs, reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

// The fault matrix judges a torn last frame on a session copied alone into a fresh state root. In the
// state root that wrote it, the store's `.recovery-cache/<id>/` still knows the batch the cut removes,
// and Reasonix 1.38.11 then refuses to resume: `close interrupted runtime: session operation id
// conflicts with an earlier batch: "turn-finalize:…"`. inspect says so (exit 1), and after repair
// Reasonix resumes the session from the same state root.
describe.skipIf(!reasonixBinary())(reasonixTitle('a torn last frame in the state root that wrote it'), () => {
  it('after rxstore repair, Reasonix resumes the session from the same state root', async () => {
    const base = await tempDir('rxstore-torn-own-root-');
    const home = join(base, 'home');
    const workspace = join(base, 'ws');
    await mkdir(workspace, { recursive: true });
    try {
      const first = await startMockModel([{ text: 'Hello.' }]);
      try {
        const run = await runReasonix({
          home,
          cwd: workspace,
          args: ['run', 'Say hello'],
          mock: first,
          permissionMode: 'danger-full-access',
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await first.close();
      }
      const [dir] = listSessionDirs(home);
      const id = dir!.split('/').at(-1)!;
      await truncate(logOf(dir!), (await stat(logOf(dir!))).size - 5);

      const inspected = await runCli(['inspect', dir!]);
      // The store's recovery cache knows the cut batch: Reasonix refuses the session until a repair.
      expect(inspected.code, inspected.stdout).toBe(1);
      expect(`${inspected.stdout}\n${inspected.stderr}`).toContain('RX_RECOVERY_CACHE_AHEAD');
      expect(`${inspected.stdout}\n${inspected.stderr}`).toContain('until `rxstore repair` clears that cache');
      const repaired = await runCli(['repair', dir!]);
      expect(repaired.code, repaired.stderr).toBe(0);

      const second = await startMockModel([{ text: 'Still here.' }]);
      try {
        const resumed = await runReasonix({
          home,
          cwd: workspace,
          args: ['run', '--resume', id, 'Are you there?'],
          mock: second,
          permissionMode: 'danger-full-access',
        });
        expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
