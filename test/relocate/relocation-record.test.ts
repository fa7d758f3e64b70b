// Relocations finishing at once each add their move to the state root's record: read, added to and written
// under rxstore's lock, none is lost (a run again of a lost one was taken for a mistyped folder, exit 2).
// A file in the record's place that rxstore did not write is left, and said, when the move ends and when
// it is run again.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { finishedBefore, recordPath, recordRelocation } from '../../src/relocate/relocation-record.js';
import type { RelocationPlan } from '../../src/relocate/relocation-plan.js';
import { runCliChild } from '../support/cli-child.js';
import { movedProject } from '../support/sessions/relocation-fixture.js';
import { tempDir } from '../support/temp-dir.js';
import { treeDigest } from '../support/tree-digest.js';

const planOf = (from: string, to: string) => ({ from, to, session: null }) as RelocationPlan;

describe('the record of finished relocations', () => {
  it('keeps every one of several that finish at once', async () => {
    const stateRoot = await tempDir('rxstore-relocation-record-');
    const plans = Array.from({ length: 6 }, (_, at) => planOf(`/p/old-${at}`, `/p/new-${at}`));
    expect(await Promise.all(plans.map((plan) => recordRelocation(stateRoot, plan, new Date())))).toEqual(
      plans.map(() => undefined),
    );
    for (const plan of plans)
      expect((await finishedBefore([stateRoot], plan, 'linux')).finishedAt, plan.from).toBeDefined();
    expect(await finishedBefore([stateRoot], planOf('/p/old-0', '/p/new-1'), 'linux')).toEqual({ unreadable: [] });
  });

  it('knows a move made in two steps, in that order, and no chain run backwards in time', async () => {
    const stateRoot = await tempDir('rxstore-relocation-chain-');
    await recordRelocation(stateRoot, planOf('/p/a', '/p/b'), new Date('2026-12-01T10:00:00Z'));
    await recordRelocation(stateRoot, planOf('/p/b', '/p/c'), new Date('2026-12-01T11:00:00Z'));
    await recordRelocation(stateRoot, planOf('/p/x', '/p/a'), new Date('2026-12-01T12:00:00Z'));
    expect((await finishedBefore([stateRoot], planOf('/p/a', '/p/c'), 'linux')).finishedAt).toBe(
      '2026-12-01T11:00:00.000Z',
    );
    // x reached a after a had moved on: its sessions are in a, not c.
    expect((await finishedBefore([stateRoot], planOf('/p/x', '/p/c'), 'linux')).finishedAt).toBeUndefined();
  });

  const planted: Record<string, (path: string) => Promise<unknown>> = {
    'a folder': (path) => mkdir(path),
    'a FIFO': async (path) => execFileSync('mkfifo', [path]),
    'a text file': (path) => writeFile(path, 'my notes\n'),
    'JSON of another shape': (path) => writeFile(path, '{"version":2,"moves":[]}\n'),
  };
  for (const [what, plant] of Object.entries(planted)) {
    it(`leaves ${what} in its place, and says the move went unrecorded, then why a run again cannot tell`, async () => {
      const { home, from, to } = await movedProject();
      await plant(recordPath(home));
      const moved = await runCliChild(['relocate', from, to, '--home', home]);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toContain('moved 3 sessions');
      expect(moved.stderr).toContain(`rxstore: warning: ${recordPath(home)} is not a record rxstore wrote (`);
      expect(moved.stderr).toContain('the move is done but not recorded');
      expect(moved.stderr.trim().split('\n')).toHaveLength(1);
      const before = await treeDigest(home);
      const again = await runCliChild(['relocate', from, to, '--home', home]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('RX_SESSION_NOT_FOUND');
      expect(again.stderr).toContain(
        `(and ${recordPath(home)} is not a record of relocations rxstore can read: check the old folder’s path)`,
      );
      expect(again.stderr).not.toContain('no relocation of it is recorded here');
      expect(await treeDigest(home)).toBe(before);
    });
  }
});
