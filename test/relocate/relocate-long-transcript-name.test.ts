// A transcript named too long for its sidecars (Reasonix refuses to resume it) is one session among the others:
// its lease lock's name cannot exist, so no Reasonix holds it, and the relocation plans and moves it with the rest
// (once, its lock's name stopped even --dry-run with RX_FILE_SYSTEM).
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

describe('relocate of a workspace with a transcript named too long for its sidecars', () => {
  it('plans and moves it with the others', async () => {
    const base = await tempDir('rxstore-relocate-long-name-');
    const [home, from, to] = [join(base, 'home'), join(base, 'old'), join(base, 'new')];
    const sessions = join(home, 'projects', workspaceSlug(from, 'linux'), 'sessions');
    await mkdir(sessions, { recursive: true });
    await mkdir(to);
    const names = [`${'b'.repeat(249)}.jsonl`, 'short.jsonl'];
    for (const name of names) await writeFile(join(sessions, name), '{"role":"user","content":"hi"}\n');
    const planned = await runCli(['relocate', from, to, '--home', home, '--dry-run']);
    expect(planned.code, planned.stderr).toBe(0);
    const moved = await runCli(['relocate', from, to, '--home', home]);
    expect([moved.code, moved.stderr]).toEqual([0, '']);
    expect(moved.stdout).toContain('moved 2 sessions');
    expect((await readdir(join(home, 'projects', workspaceSlug(to, 'linux'), 'sessions'))).sort()).toEqual(names);
  });
});
