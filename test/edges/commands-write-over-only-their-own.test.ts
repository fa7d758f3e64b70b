// A command deletes or writes over only what it wrote: planted site state, symlinks, files it did not
// write, --force; a path of the wrong kind said as such; the files follow the user's umask.
import { mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const plain = fixture('tool-calls');
const site = (to: string, ...more: string[]) => runCliChild(['view', '--all', '--to', to, '--state-home', plain.root, ...more]);

describe('view --all --to acts on its own site state only after checking it', () => {
  it('a planted rxstore-site.json naming ../../victim/important.txt deletes nothing: refused, and --force leaves the victim too', async () => {
    const base = await tempDir('rxstore-attack-');
    const victim = join(base, 'victim', 'important.txt');
    await mkdir(join(base, 'victim'));
    await writeFile(victim, 'keep me\n');
    const to = join(base, 'out', 'site');
    await mkdir(to, { recursive: true });
    const planted = { format: 1, renderer: 'view-3', pages: [{ file: '../../victim/important.txt', digest: 'x', id: 'x', path: '/x', store: 'sessions-v4', title: null, workspace: null, startedAt: null, updatedAt: null, messages: 0, toolCalls: 0, status: 'ok', problem: null }] };
    await writeFile(join(to, 'rxstore-site.json'), JSON.stringify(planted));

    const refused = await site(to);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^rxstore: RX_OVERWRITE_REFUSED: ${to}/rxstore-site\\.json: not site state rxstore wrote \\(pages\\.0\\.file: not a page name rxstore gives\\); --force .*\\n$`));
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');

    const forced = await site(to, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect(forced.stdout).toMatch(/1 session, 1 page written, 0 unchanged, 0 removed/);
  });

  it('a sessions/ symlink is never written through, --force or not', async () => {
    const base = await tempDir('rxstore-attack-');
    const elsewhere = join(base, 'elsewhere');
    await mkdir(elsewhere);
    const to = join(base, 'site');
    expect((await site(to)).code).toBe(0);
    await rm(join(to, 'sessions'), { recursive: true });
    await symlink(elsewhere, join(to, 'sessions'));
    for (const extra of [[], ['--force']]) {
      const run = await site(to, ...extra);
      expect(run).toMatchObject({ code: 1, stderr: `rxstore: RX_OVERWRITE_REFUSED: ${to}/sessions: a symlink; rxstore writes pages only into a folder of its own there\n` });
      expect(await readdir(elsewhere)).toEqual([]);
    }
  });

  it('an index.html or a folder of files rxstore did not write is refused without --force; its own site is rewritten', async () => {
    const base = await tempDir('rxstore-attack-');
    const mine = join(base, 'mine');
    await mkdir(mine);
    await writeFile(join(mine, 'index.html'), '<p>my own page</p>\n');
    const refused = await site(mine);
    expect(refused).toMatchObject({ code: 1, stderr: `rxstore: RX_OVERWRITE_REFUSED: ${mine}: a folder rxstore did not write (it holds files and no rxstore-site.json); --force writes the site into it\n` });
    expect(await readFile(join(mine, 'index.html'), 'utf8')).toBe('<p>my own page</p>\n');

    // A site rxstore wrote, then someone's own index put in its place.
    const own = join(base, 'own');
    expect((await site(own)).code).toBe(0);
    expect((await site(own)).stdout).toMatch(/0 pages written, 1 unchanged/);
    await writeFile(join(own, 'index.html'), '<p>replaced</p>\n');
    await writeFile(join(own, 'rxstore-site.json'), '{"format":1,"renderer":"view-3","pages":[]}\n');
    const index = await site(own);
    expect(index).toMatchObject({ code: 1, stderr: `rxstore: RX_OVERWRITE_REFUSED: ${own}/index.html: a file rxstore did not write (it has no generator mark); --force writes the site over it\n` });
    expect((await site(own, '--force')).code).toBe(0);
    expect(await readFile(join(own, 'index.html'), 'utf8')).toContain('<meta name="generator" content="rxstore">');
  });

  it('a page file rxstore did not write is not removed when no session needs it', async () => {
    const base = await tempDir('rxstore-attack-');
    const to = join(base, 'site');
    expect((await site(to)).code).toBe(0);
    const state = JSON.parse(await readFile(join(to, 'rxstore-site.json'), 'utf8')) as { pages: { file: string }[] };
    // The state names a page no session needs, which stands as a symlink to someone's file.
    const theirs = join(base, 'theirs.html');
    await writeFile(theirs, 'theirs\n');
    await symlink(theirs, join(to, 'sessions', 'gone.html'));
    state.pages.push({ ...state.pages[0]!, file: 'gone.html' });
    await writeFile(join(to, 'rxstore-site.json'), JSON.stringify(state));
    const run = await site(to);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/0 removed/);
    expect(await readFile(theirs, 'utf8')).toBe('theirs\n');
  });
});

describe('view --to and export --to write over only what rxstore wrote, unless --force', () => {
  it('view --to refuses a file rxstore did not write, rewrites a page (or Markdown) it wrote, and --force writes over', async () => {
    const base = await tempDir('rxstore-view-to-');
    for (const name of ['page.html', 'notes.md']) {
      const file = join(base, name);
      await writeFile(file, 'my notes\n');
      const refused = await runCliChild(['view', plain.dir, '--to', file]);
      expect(refused).toMatchObject({ code: 1, stdout: '', stderr: `rxstore: RX_OVERWRITE_REFUSED: ${file}: a file rxstore did not write (it has no generator mark); --force writes over it\n` });
      expect(await readFile(file, 'utf8')).toBe('my notes\n');
      expect((await runCliChild(['view', plain.dir, '--to', file, '--force'])).code).toBe(0);
      const again = await runCliChild(['view', plain.dir, '--to', file]);
      expect(again.code, again.stderr).toBe(0);
    }
    expect(await readFile(join(base, 'notes.md'), 'utf8')).toMatch(/^<!-- generator: rxstore -->\n# /);
  });

  it('export --to refuses a file holding something else, --force writes over it', async () => {
    const file = join(await tempDir('rxstore-export-to-'), 'out.json');
    await writeFile(file, 'mine\n');
    const refused = await runCliChild(['export', plain.dir, '--to', file, '--format', 'json']);
    expect(refused).toMatchObject({ code: 1, stderr: `rxstore: RX_EXPORT_REFUSED: ${file} already exists and holds something else; --force writes over it\n` });
    expect((await runCliChild(['export', plain.dir, '--to', file, '--format', 'json', '--force'])).code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ id: expect.any(String) });
  });
});

describe('a path of the wrong kind is named as such', () => {
  it('migrate --to a file, salvage --to a file, view --all --to a file: "is a file, a folder is needed"', async () => {
    const base = await tempDir('rxstore-kind-');
    const file = join(base, 'some.json');
    await writeFile(file, '{}\n');
    const transcript = join(base, 't.jsonl');
    await writeFile(transcript, `${JSON.stringify({ role: 'user', content: 'hi' })}\n`);
    const runs = [
      await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--to', file]),
      await runCliChild(['salvage', plain.dir, '--to', file]),
      await runCliChild(['salvage', transcript, '--to', file]),
      await site(file),
    ];
    for (const run of runs) expect(run).toMatchObject({ code: 2, stdout: '', stderr: `rxstore: RX_PATH_KIND: ${file}: is a file, a folder is needed\n` });
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });

  it('export --to a folder/ and view --to a folder: "is a folder, a file is needed", named as given', async () => {
    const base = await tempDir('rxstore-kind-');
    const folder = join(base, 'out');
    await mkdir(folder);
    for (const given of [`${folder}/`, folder]) {
      expect(await runCliChild(['export', plain.dir, '--to', given])).toMatchObject({ code: 2, stdout: '', stderr: `rxstore: RX_PATH_KIND: ${given}: is a folder, a file is needed\n` });
      expect(await runCliChild(['view', plain.dir, '--to', given])).toMatchObject({ code: 2, stdout: '', stderr: `rxstore: RX_PATH_KIND: ${given}: is a folder, a file is needed\n` });
    }
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('files a user asks for follow the umask, as cp and tar do', () => {
  it('a page, a site and an export are made with the user’s umask, not private as a store’s files are', async () => {
    const base = await tempDir('rxstore-umask-');
    const page = join(base, 'page.html');
    const to = join(base, 'site');
    const out = join(base, 'out.jsonl');
    expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
    expect((await site(to)).code).toBe(0);
    expect((await runCliChild(['export', plain.dir, '--to', out])).code).toBe(0);
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    // The tests run under the umask vitest inherits: what that umask lets others read, they may read.
    const umask = process.umask();
    expect(await mode(page)).toBe(0o666 & ~umask);
    expect(await mode(join(to, 'index.html'))).toBe(0o666 & ~umask);
    expect(await mode(join(to, 'sessions'))).toBe(0o777 & ~umask);
    const [pageName] = await readdir(join(to, 'sessions'));
    expect(await mode(join(to, 'sessions', pageName!))).toBe(0o666 & ~umask);
    expect(await mode(out)).toBe(0o666 & ~umask);
  });
});
