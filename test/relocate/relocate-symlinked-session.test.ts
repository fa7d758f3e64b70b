import { lstat, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { movedProject, storeOf } from '../support/sessions/relocation-fixture.js';

describe('relocate and a symlink where a session folder should be', () => {
  it('leaves it and what it points at where they are, and says so', async () => {
    const { base, home, from, to, v4 } = await movedProject();
    const elsewhere = join(base, 'elsewhere', 'f'.repeat(32));
    await mkdir(elsewhere, { recursive: true });
    const link = join(storeOf(home, from), 'f'.repeat(32));
    await symlink(elsewhere, link);
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`note: ${link} is a symlink, not a session Reasonix opens: left where it is`);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect((await lstat(elsewhere)).isDirectory()).toBe(true);
    expect(await readdir(storeOf(home, to))).toEqual(expect.arrayContaining(v4));
    expect(await readdir(storeOf(home, to))).not.toContain('f'.repeat(32));
  });
});
