import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rxstoreBin, runNodeChild } from '../support/cli-child.js';
import { killAtFailPoint } from '../support/faults/fail-points.js';
import { movedProject } from '../support/sessions/relocation-fixture.js';
import { treeDigest } from '../support/tree-digest.js';

describe('relocate and a journal planted in the state root', () => {
  it('refuses a journal whose session id is a path out of the store, moving nothing', async () => {
    const { base, home, from, to } = await movedProject();
    const argv = [rxstoreBin, 'relocate', from, to, '--home', home];
    // A real journal, as a run killed right after writing it leaves it, then one id made a path.
    await killAtFailPoint(argv, { name: 'relocate.journal-written', hit: 1 });
    const journalPath = join(home, '.rxstore-relocation.json');
    const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { stores: { sessions: { id: string }[] }[] };
    const victim = join(base, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'keep.txt'), 'mine');
    journal.stores[0]!.sessions[0]!.id = '../../../../victim';
    await writeFile(journalPath, JSON.stringify(journal));
    const before = await treeDigest(base);

    const run = await runNodeChild(argv);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('RX_DAMAGED_STORE');
    expect(run.stderr).toContain('a session id is one name, not a path');
    expect(await readFile(join(victim, 'keep.txt'), 'utf8')).toBe('mine');
    expect(await treeDigest(base)).toBe(before);
  });
});
