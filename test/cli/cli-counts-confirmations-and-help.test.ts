// Small things a careful command line gets right: a count takes its noun's number, a file written is
// confirmed, help examples never wrap into the wrong column, nothing found is exit 2 everywhere.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('what the command line says of what it did', () => {
  it('view --all of one session says "1 session" and "1 page"', async () => {
    const site = join(await tempDir('rxstore-one-site-'), 'site');
    const run = await runCliChild(['view', '--all', '--to', site, '--state-home', fixture('plain-chat').root]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${join(site, 'index.html')}: 1 session, 1 page written, 0 unchanged, 0 removed\n`);
  });

  it('view --all that finds no session says so as ls does (exit 2), and leaves the site as it was', async () => {
    const site = join(await tempDir('rxstore-kept-site-'), 'site');
    expect((await runCliChild(['view', '--all', '--to', site, '--state-home', fixture('plain-chat').root])).code).toBe(
      0,
    );
    const before = await readdir(join(site, 'sessions'));
    const typo = join(await tempDir('rxstore-typo-'), 'no-such-home');
    const ls = await runCliChild(['ls', '--state-home', typo]);
    const run = await runCliChild(['view', '--all', '--to', site, '--state-home', typo]);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: ls.stderr });
    expect(run.stderr).toMatch(/^rxstore: RX_SESSION_NOT_FOUND: no sessions found \(/);
    expect(await readdir(join(site, 'sessions'))).toEqual(before);
  });

  it('view --to FILE confirms what it wrote, as export does', async () => {
    const dir = await tempDir('rxstore-view-to-');
    const source = fixture('plain-chat');
    const page = join(dir, 'page.md');
    const run = await runCliChild(['view', source.dir, '--to', page]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^wrote ${page.replaceAll('.', '\\.')}: Markdown of \\d+ messages\\n$`));
    expect(await readFile(page, 'utf8')).toContain(source.id);
    const exported = await runCliChild(['export', source.dir, '--to', join(dir, 'one.jsonl')]);
    expect(exported.stdout).toMatch(/^exported \d+ messages to /);
  });

  it.each(['', 'inspect', 'ls', 'where', 'cat', 'export', 'view', 'repair', 'salvage', 'migrate jsonl-to-v4'])(
    'help %s: every example is a # line saying what it does, then its command',
    async (command) => {
      const help = await runCliChild([...command.split(' ').filter(Boolean), '--help']);
      expect(help.code).toBe(0);
      const section = help.stdout.split('\nExamples:\n')[1] ?? '';
      // The examples end where a paragraph does not start with a # line.
      const blocks = section.slice(0, section.search(/\n\n(?! {2}#)/)).split('\n\n');
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) {
        const [comment, ...commandLines] = block.split('\n');
        expect(comment, block).toMatch(/^ {2}# \S/);
        expect(commandLines[0], block).toMatch(/^ {2}rxstore /);
        // A command too long for the line goes on in the lines below it, never beside a description.
        expect(
          commandLines.slice(1).every((line) => !line.includes('  #')),
          block,
        ).toBe(true);
      }
    },
  );
});
