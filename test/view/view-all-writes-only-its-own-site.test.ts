// `view --all` deletes or overwrites only what it wrote: its own partial output is finished by a
// re-run, runs on one site are serialised, a planted state makes nothing its own, and a site is
// never written where rxstore reads sessions from.
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const plain = fixture('plain-chat');

describe('view --all --to a site', () => {
  it('a first run cut short (marked pages, no index, no state) is finished by the next run', async () => {
    const site = join(await tempDir('rxstore-site-partial-'), 'site');
    expect((await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site])).code).toBe(0);
    // What a first run leaves when the disk fills before its index and state are written.
    await rm(join(site, 'index.html'));
    await rm(join(site, 'rxstore-site.json'));
    const again = await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect((await readdir(site)).sort()).toEqual(['index.html', 'rxstore-site.json', 'sessions']);
  });

  it('a folder with a file that is not rxstore’s, and no state, is still refused', async () => {
    const site = join(await tempDir('rxstore-site-foreign-'), 'site');
    await mkdir(join(site, 'sessions'), { recursive: true });
    await writeFile(join(site, 'sessions', 'mine.html'), '<p>my page</p>');
    const run = await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^rxstore: RX_OVERWRITE_REFUSED: .*a folder rxstore did not write/);
    expect(await readFile(join(site, 'sessions', 'mine.html'), 'utf8')).toBe('<p>my page</p>');
  });

  it('four first runs at once into one new folder all finish, one after another', async () => {
    const site = join(await tempDir('rxstore-site-parallel-'), 'site');
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => runCliChild(['view', '--all', '--state-home', plain.root, '--to', site])),
    );
    for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await readdir(site)).sort()).toEqual(['index.html', 'rxstore-site.json', 'sessions']);
  });

  it('a planted old-renderer state makes no file rxstore’s: nothing is removed or written over without --force', async () => {
    const site = join(await tempDir('rxstore-site-planted-'), 'site');
    await mkdir(join(site, 'sessions'), { recursive: true });
    await writeFile(join(site, 'index.html'), '<p>my index</p>');
    await writeFile(join(site, 'sessions', 'notes.html'), '<p>my notes</p>');
    const page = {
      file: 'notes.html',
      digest: 'x',
      id: 'notes',
      path: '/nowhere',
      store: 'sessions-v4',
      title: null,
      workspace: null,
      startedAt: null,
      updatedAt: null,
      messages: 0,
      toolCalls: 0,
      status: 'ok',
      problem: null,
    };
    await writeFile(join(site, 'rxstore-site.json'), JSON.stringify({ format: 1, renderer: 'view-1', pages: [page] }));
    const run = await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^rxstore: RX_OVERWRITE_REFUSED: .*index\.html: a file rxstore did not write/);
    expect(await readFile(join(site, 'index.html'), 'utf8')).toBe('<p>my index</p>');
    expect(await readFile(join(site, 'sessions', 'notes.html'), 'utf8')).toBe('<p>my notes</p>');

    // Without the foreign index the site is written, and the unmarked page the state names is left.
    await rm(join(site, 'index.html'));
    const written = await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toMatch(/, 0 removed\n$/);
    expect(await readFile(join(site, 'sessions', 'notes.html'), 'utf8')).toBe('<p>my notes</p>');
  });

  it('a site inside a store (or a state root) rxstore reads is refused, naming the folder, and nothing is written', async () => {
    const root = join(await tempDir('rxstore-site-in-store-'), 'root');
    await cp(plain.root, root, { recursive: true });
    const store = dirname(join(root, plain.sessionDir));
    for (const site of [join(store, 'site'), join(root, 'site')]) {
      const run = await runCliChild(['view', '--all', '--state-home', root, '--to', site]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `rxstore: RX_OVERWRITE_REFUSED: ${site}: inside ${root}, where rxstore reads sessions from; a site there would be read as a session: name a folder outside it\n`,
      );
    }
    expect(await readdir(store)).not.toContain('site');
    const ls = await runCliChild(['ls', '--state-home', root]);
    expect(ls.code).toBe(0);
  });
});
