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
