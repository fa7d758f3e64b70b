// A --to the file system cannot take is the path the user typed: a usage error (RX_PATH_KIND, exit 2), one line,
// cut with its length, never a 5,000-character line, never a system failure (exit 1).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

describe('a --to of 5,000 characters', () => {
  const session = fixture('plain-chat').dir;
  const name = 'a'.repeat(5000);
  it.each([
    ['view --to', (dir: string) => ['view', session, '--to', join(dir, `${name}.html`)]],
    ['export --to', (dir: string) => ['export', session, '--to', join(dir, `${name}.jsonl`)]],
    ['salvage --to', (dir: string) => ['salvage', session, '--to', join(dir, name)]],
    ['view --all --to', (dir: string) => ['view', '--all', '--to', join(dir, name), '--state-home', dir]],
  ])('%s: RX_PATH_KIND, exit 2, one line under 400 characters that says the length', async (_, args) => {
    const dir = await tempDir('rxstore-long-to-');
    const run = await runCli(args(dir));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(400);
    expect(lines[0]).toMatch(/^rxstore: RX_PATH_KIND: .*characters\).*a name longer than the file system takes$/);
  });
});

describe('migrate --to a session folder', () => {
  it('is refused before anything is written: RX_PATH_KIND, exit 2, the session folder as it was', async () => {
    const { cp, readdir, writeFile } = await import('node:fs/promises');
    const { basename } = await import('node:path');
    const dir = await tempDir('rxstore-to-session-');
    const source = fixture('plain-chat').dir;
    const session = join(dir, basename(source));
    await cp(source, session, { recursive: true });
    const before = (await readdir(session)).sort();
    const exported = await runCli(['export', session, '--to', join(dir, 'chat.jsonl')]);
    expect(exported.code, exported.stderr).toBe(0);
    await writeFile(join(dir, 'unused'), '');
    for (const args of [
      ['migrate', 'jsonl-to-v4', join(dir, 'chat.jsonl')],
      ['migrate', 'jsonl-to-v4', dir],
    ]) {
      const run = await runCli([...args, '--to', session, '--cwd', dir]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toBe(
        `rxstore: RX_PATH_KIND: ${session}: is a session (it holds manifest.json), not a sessions-v4 directory\n`,
      );
      expect((await readdir(session)).sort()).toEqual(before);
    }
  });
});

describe('salvage --to a session folder', () => {
  it('is refused before anything is written, for a session and for a transcript: RX_PATH_KIND, exit 2', async () => {
    const { cp, readdir } = await import('node:fs/promises');
    const { basename } = await import('node:path');
    const dir = await tempDir('rxstore-salvage-to-session-');
    const source = fixture('plain-chat').dir;
    const session = join(dir, basename(source));
    await cp(source, session, { recursive: true });
    const other = join(dir, 'other', basename(source));
    await cp(source, other, { recursive: true });
    const exported = await runCli(['export', session, '--to', join(dir, 'chat.jsonl')]);
    expect(exported.code, exported.stderr).toBe(0);
    const before = (await readdir(session)).sort();
    for (const from of [other, join(dir, 'chat.jsonl')]) {
      const run = await runCli(['salvage', from, '--to', session]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toBe(
        `rxstore: RX_PATH_KIND: ${session}: is a session (it holds manifest.json), not a sessions-v4 directory\n`,
      );
      expect((await readdir(session)).sort()).toEqual(before);
    }
  });
});
