import { cp, mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { fixture } from '../../support/fixtures.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A transcript's name leaves room for the names of the files Reasonix 1.38.11 keeps beside it, or not: with a
 * stem of 229 bytes, `<stem>.transcript-projection.json` is longer than a file name may be, and Reasonix's resume
 * fails on it ("file name too long"); with 228 it resumes. rxstore says which, and such a transcript is one row among
 * the others: the listing, `where` and `search` of every other session go on (a `.meta` named after it was once
 * a system error that stopped them all).
 */
const transcript =
  '{"role":"system","content":"sys"}\n{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n';

describe.skipIf(!reasonixBinary())('a transcript whose name leaves no room for its sidecars', () => {
  it('is refused as Reasonix refuses it, and every other session is listed, found and searched', async () => {
    const home = await tempDir('rxstore-long-name-');
    const workspace = await tempDir('rxstore-long-name-ws-');
    const other = fixture('tool-calls');
    await cp(join(other.root, 'projects'), join(home, 'projects'), { recursive: true });
    const sessions = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
    await mkdir(sessions, { recursive: true });
    // No stem the start of another: Reasonix takes the start of a name for the session.
    const stems = [
      ['A', 228],
      ['B', 229],
      ['C', 249],
    ].map(([letter, length]) => (letter as string).repeat(length as number));
    for (const stem of stems) await writeFile(join(sessions, `${stem}.jsonl`), transcript);

    const listed = await runCli(['ls', '--state-home', home, '--no-cache', '--json']);
    const rows = JSON.parse(listed.stdout) as { id: string; status: string; problem: string | null }[];
    const statusOf = (id: string) => rows.find((row) => row.id === id)?.status;
    expect(statusOf(other.id)).toBe('ok');
    expect(stems.map(statusOf)).toEqual(['ok', 'damaged', 'damaged']);
    expect(rows.find((row) => row.id === stems[1])?.problem).toContain('file name too long');
    expect((await runCli(['where', other.id, '--state-home', home])).code).toBe(0);
    process.env.XDG_CACHE_HOME = await tempDir('rxstore-long-name-cache-');
    try {
      const search = await runCli(['search', 'hello', '--state-home', home, '--json']);
      expect(search.code, search.stderr).toBe(0);
    } finally {
      delete process.env.XDG_CACHE_HOME;
    }

    // Each in a state root of its own: a resume that fails, or migrates one, changes how Reasonix finds another.
    for (const [at, stem] of stems.slice(0, 2).entries()) {
      const own = await tempDir('rxstore-long-name-own-');
      const ownSessions = join(own, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
      await mkdir(ownSessions, { recursive: true });
      await writeFile(join(ownSessions, `${stem}.jsonl`), transcript);
      const mock = await startMockModel([{ text: 'again' }]);
      try {
        const run = await runReasonix({
          home: own,
          cwd: workspace,
          args: ['run', '--resume', stem, 'again'],
          mock,
          permissionMode: 'danger-full-access',
        });
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(at === 0 ? 0 : 1);
        if (at === 1) expect(run.stderr).toContain('file name too long');
      } finally {
        await mock.close();
      }
    }
  }, 120_000);

  it('salvaged, is named short enough for Reasonix to resume it', async () => {
    const workspace = await tempDir('rxstore-long-name-ws-');
    const home = await tempDir('rxstore-long-name-salvage-');
    const sessions = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
    await mkdir(sessions, { recursive: true });
    const source = join(sessions, `${'S'.repeat(225)}.jsonl`);
    await writeFile(source, `${transcript}not a message\n`);
    const salvaged = await runCli(['salvage', source, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const { newPath } = JSON.parse(salvaged.stdout) as { newPath: string };
    const stem = basename(newPath, '.jsonl');
    expect(stem).toBe(`${'S'.repeat(219)}-salvaged`);
    const mock = await startMockModel([{ text: 'again' }]);
    try {
      const run = await runReasonix({
        home,
        cwd: workspace,
        args: ['run', '--resume', stem, 'again'],
        mock,
        permissionMode: 'danger-full-access',
      });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    } finally {
      await mock.close();
    }
  }, 120_000);
});
