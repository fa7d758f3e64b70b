// A command deletes or writes over only what it wrote: planted site state, symlinks, files it did not
// write, --force; a path of the wrong kind said as such; the files follow the user's umask.
import { execFileSync } from 'node:child_process';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';
import { treeDigest } from '../support/tree-digest.js';

const plain = fixture('tool-calls');
const site = (to: string, ...more: string[]) =>
  runCliChild(['view', '--all', '--to', to, '--state-home', plain.root, ...more]);

describe('view --all --to acts on its own site state only after checking it', () => {
  it('a planted rxstore-site.json naming ../../victim/important.txt deletes nothing: refused, and --force leaves the victim too', async () => {
    const base = await tempDir('rxstore-attack-');
    const victim = join(base, 'victim', 'important.txt');
    await mkdir(join(base, 'victim'));
    await writeFile(victim, 'keep me\n');
    const to = join(base, 'out', 'site');
    await mkdir(to, { recursive: true });
    const planted = {
      format: 1,
      renderer: 'view-3',
      pages: [
        {
          file: '../../victim/important.txt',
          digest: 'x',
          id: 'x',
          path: '/x',
          store: 'sessions-v4',
          title: null,
          workspace: null,
          startedAt: null,
          updatedAt: null,
          messages: 0,
          toolCalls: 0,
          status: 'ok',
          problem: null,
        },
      ],
    };
    await writeFile(join(to, 'rxstore-site.json'), JSON.stringify(planted));

    const refused = await site(to);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^rxstore: RX_OVERWRITE_REFUSED: ${to}/rxstore-site\\.json: not site state rxstore wrote \\(pages\\.0\\.file: not a page name rxstore gives\\); --force .*\\n$`,
      ),
    );
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
      expect(run).toMatchObject({
        code: 1,
        stderr: `rxstore: RX_OVERWRITE_REFUSED: ${to}/sessions: a symlink; rxstore writes pages only into a folder of its own there\n`,
      });
      expect(await readdir(elsewhere)).toEqual([]);
    }
  });

  it('a page or index.html that is a symlink is refused as one, --force or not, never with --force as the way out', async () => {
    const base = await tempDir('rxstore-attack-');
    const theirs = join(base, 'theirs.html');
    await writeFile(theirs, '<p>theirs</p>\n');
    const to = join(base, 'site');
    expect((await site(to)).code).toBe(0);
    const [page] = await readdir(join(to, 'sessions'));
    for (const planted of [join(to, 'sessions', page!), join(to, 'index.html')]) {
      await rm(planted);
      await symlink(theirs, planted);
      for (const extra of [[], ['--force']]) {
        const run = await site(to, ...extra);
        expect(run).toMatchObject({
          code: 2,
          stderr: `rxstore: RX_PATH_KIND: ${planted}: is a symbolic link; rxstore writes only over a regular file, --force or not\n`,
        });
        expect(await readFile(theirs, 'utf8')).toBe('<p>theirs</p>\n');
      }
      await rm(planted);
    }
  });

  it('an index.html or a folder of files rxstore did not write is refused without --force; its own site is rewritten', async () => {
    const base = await tempDir('rxstore-attack-');
    const mine = join(base, 'mine');
    await mkdir(mine);
    await writeFile(join(mine, 'index.html'), '<p>my own page</p>\n');
    const refused = await site(mine);
    expect(refused).toMatchObject({
      code: 1,
      stderr: `rxstore: RX_OVERWRITE_REFUSED: ${mine}: a folder rxstore did not write (it holds files and no rxstore-site.json); --force writes the site into it\n`,
    });
    expect(await readFile(join(mine, 'index.html'), 'utf8')).toBe('<p>my own page</p>\n');

    // A site rxstore wrote, then someone's own index put in its place.
    const own = join(base, 'own');
    expect((await site(own)).code).toBe(0);
    expect((await site(own)).stdout).toMatch(/0 pages written, 1 unchanged/);
    await writeFile(join(own, 'index.html'), '<p>replaced</p>\n');
    await writeFile(join(own, 'rxstore-site.json'), '{"format":1,"renderer":"view-3","pages":[]}\n');
    const index = await site(own);
    expect(index).toMatchObject({
      code: 1,
      stderr: `rxstore: RX_OVERWRITE_REFUSED: ${own}/index.html: a file rxstore did not write (it has no generator mark); --force writes the site over it\n`,
    });
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
      expect(refused).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `rxstore: RX_OVERWRITE_REFUSED: ${file}: a file rxstore did not write (it has no generator mark); --force writes over it\n`,
      });
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
    expect(refused).toMatchObject({
      code: 1,
      stderr: `rxstore: RX_EXPORT_REFUSED: ${file} already exists and holds something else; --force writes over it\n`,
    });
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
    for (const run of runs)
      expect(run).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${file}: is a file, a folder is needed\n`,
      });
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });

  it('export --to a folder/ and view --to a folder: "is a folder, a file is needed", named as given', async () => {
    const base = await tempDir('rxstore-kind-');
    const folder = join(base, 'out');
    await mkdir(folder);
    for (const given of [`${folder}/`, folder]) {
      expect(await runCliChild(['export', plain.dir, '--to', given])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${given}: is a folder, a file is needed\n`,
      });
      expect(await runCliChild(['view', plain.dir, '--to', given])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${given}: is a folder, a file is needed\n`,
      });
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

const isRoot = process.getuid?.() === 0;
const notRegular = (given: string, what: string) =>
  `rxstore: RX_PATH_KIND: ${given}: is ${what}; rxstore writes only over a regular file, --force or not\n`;

/** A copy of a JSONL fixture's transcript and meta in a folder of its own. */
async function transcriptCopy(): Promise<string> {
  const dir = await tempDir('rxstore-jsonl-');
  const source = join(
    fixture('jsonl-migrated').root,
    'projects',
    '-tmp-rxstore-fixture-ws-jsonl-migrated',
    'sessions',
    'legacy-demo.jsonl',
  );
  await cp(source, join(dir, 'legacy-demo.jsonl'));
  await cp(`${source}.meta`, join(dir, 'legacy-demo.jsonl.meta'));
  return join(dir, 'legacy-demo.jsonl');
}

describe('--force writes over a regular file only: never a device, a FIFO or a symbolic link', () => {
  it('view --to, export --to and cat --cursor refuse a FIFO and a symbolic link, named as given and as what they are, exit 2, and leave them as they were', async () => {
    const base = await tempDir('rxstore-not-regular-');
    await mkdir(join(base, 'd'));
    execFileSync('mkfifo', [join(base, 'd', 'fifo')]);
    await writeFile(join(base, 'theirs.html'), 'theirs\n');
    await symlink(join(base, 'theirs.html'), join(base, 'd', 'link'));
    await symlink('/proc/self/fd/1', join(base, 'd', 'stdout'));
    const cases = [
      ['d/fifo', 'a FIFO'],
      ['d/link', 'a symbolic link'],
      ['d/stdout', 'a symbolic link'],
    ] as const;
    for (const [given, what] of cases) {
      for (const args of [
        ['view', plain.dir, '--to', given, '--force'],
        ['view', plain.dir, '--to', given, '--format', 'md'],
        ['export', plain.dir, '--to', given, '--force'],
        ['export', plain.dir, '--to', given, '--format', 'json', '--force'],
        ['cat', plain.dir, '--records', '--cursor', given],
      ]) {
        expect(await runCliChild(args, { cwd: base }), args.join(' ')).toEqual({
          code: 2,
          signal: null,
          stdout: '',
          stderr: notRegular(given, what),
        });
      }
    }
    expect((await lstat(join(base, 'd', 'fifo'))).isFIFO()).toBe(true);
    expect(await readlink(join(base, 'd', 'link'))).toBe(join(base, 'theirs.html'));
    expect(await readlink(join(base, 'd', 'stdout'))).toBe('/proc/self/fd/1');
    expect(await readFile(join(base, 'theirs.html'), 'utf8')).toBe('theirs\n');
    // Export wrote no .meta beside what it refused.
    expect((await readdir(join(base, 'd'))).sort()).toEqual(['fifo', 'link', 'stdout']);
  });

  it.skipIf(!isRoot)(
    `a device node (mknod c 1 3, c 1 7) is refused as a device, --force or not${isRoot ? '' : ' — skipped: mknod needs root (CI runs as root)'}`,
    async () => {
      const base = await tempDir('rxstore-device-');
      await mkdir(join(base, 'd'));
      execFileSync('mknod', [join(base, 'd', 'null'), 'c', '1', '3']);
      execFileSync('mknod', [join(base, 'd', 'full'), 'c', '1', '7']);
      for (const given of ['d/null', 'd/full']) {
        for (const args of [
          ['view', plain.dir, '--to', given, '--force'],
          ['export', plain.dir, '--to', given, '--force'],
          ['cat', plain.dir, '--records', '--cursor', given],
        ]) {
          expect(await runCliChild(args, { cwd: base }), args.join(' ')).toEqual({
            code: 2,
            signal: null,
            stdout: '',
            stderr: notRegular(given, 'a device'),
          });
        }
        expect((await lstat(join(base, given))).isCharacterDevice()).toBe(true);
      }
      expect((await readdir(join(base, 'd'))).sort()).toEqual(['full', 'null']);
    },
  );

  it('view --all --force leaves a page that is a symbolic link, and what it leads to', async () => {
    const base = await tempDir('rxstore-site-link-');
    const to = join(base, 'site');
    expect((await site(to)).code).toBe(0);
    const [page] = await readdir(join(to, 'sessions'));
    const pagePath = join(to, 'sessions', page!);
    await writeFile(join(base, 'theirs.html'), 'theirs\n');
    await rm(pagePath);
    await symlink(join(base, 'theirs.html'), pagePath);
    const forced = await site(to, '--force');
    expect(forced).toMatchObject({ code: 2, stderr: notRegular(pagePath, 'a symbolic link') });
    expect(await readlink(pagePath)).toBe(join(base, 'theirs.html'));
    expect(await readFile(join(base, 'theirs.html'), 'utf8')).toBe('theirs\n');
  });
});

describe('nothing is written inside the session a command reads, --force or not', () => {
  const inside = (given: string, session: string) =>
    `rxstore: RX_PATH_KIND: ${given}: inside the session ${session}, which this command reads; rxstore writes nothing there, --force or not\n`;

  it('export, view, cat --cursor and salvage with a target in the session directory, or its store’s content store, are refused and change nothing', async () => {
    const dir = await copySession(fixture('payload-ref').dir);
    const store = dirname(dir);
    // A folder inside the session, as a store salvage might be pointed at.
    await mkdir(join(dir, 'legacy'));
    const before = await treeDigest(store);
    const runs: [string[], string][] = [
      [['export', dir, '--to', join(dir, 'events.frames'), '--force'], join(dir, 'events.frames')],
      [['export', dir, '--to', join(dir, 'copy.json'), '--format', 'json'], join(dir, 'copy.json')],
      [
        ['export', dir, '--to', join(store, '.content-v1', 'x.json'), '--format', 'json'],
        join(store, '.content-v1', 'x.json'),
      ],
      [['view', dir, '--to', join(dir, 'manifest.json'), '--force'], join(dir, 'manifest.json')],
      [['view', dir, '--to', join(dir, 'page.html')], join(dir, 'page.html')],
      [['cat', dir, '--records', '--cursor', join(dir, 'manifest.json')], join(dir, 'manifest.json')],
      [['cat', dir, '--records', '--cursor', join(dir, 'cursor.json')], join(dir, 'cursor.json')],
      [['salvage', dir, '--to', dir], dir],
      [['salvage', dir, '--to', join(dir, 'legacy')], join(dir, 'legacy')],
    ];
    for (const [args, given] of runs) {
      const run = await runCliChild(args);
      expect(run, args.join(' ')).toEqual({ code: 2, signal: null, stdout: '', stderr: inside(given, dir) });
      // Never a word about removing a file of the session.
      expect(run.stderr).not.toMatch(/remove/);
    }
    expect(await treeDigest(store)).toBe(before);
    expect(await readdir(join(dir, 'legacy'))).toEqual([]);
    const inspected = await runCliChild(['inspect', dir]);
    expect(inspected.code, inspected.stdout).toBe(0);
  });

  it('a target reached through a symbolic link to the session is inside it too', async () => {
    const dir = await copySession(plain.dir);
    const link = join(await tempDir('rxstore-link-'), 'link');
    await symlink(dir, link);
    const before = await treeDigest(dir);
    expect(await runCliChild(['export', dir, '--to', join(link, 'events.frames'), '--force'])).toMatchObject({
      code: 2,
      stderr: inside(join(link, 'events.frames'), dir),
    });
    expect(await treeDigest(dir)).toBe(before);
  });

  it('a JSONL session: its transcript, its .jsonl.meta and its sidecar folders are never written, by export, view, cat, salvage or migrate', async () => {
    const transcript = await transcriptCopy();
    const folder = dirname(transcript);
    const sidecarFolder = join(folder, 'legacy-demo.ckpt');
    await mkdir(sidecarFolder);
    const before = await treeDigest(folder);
    const runs: [string[], string][] = [
      [['export', transcript, '--to', transcript, '--force'], transcript],
      [['export', transcript, '--to', `${transcript}.meta`, '--format', 'json', '--force'], `${transcript}.meta`],
      [['view', transcript, '--to', transcript, '--force'], transcript],
      [
        ['view', transcript, '--to', join(folder, 'legacy-demo.context.json'), '--force'],
        join(folder, 'legacy-demo.context.json'),
      ],
      [['salvage', transcript, '--to', sidecarFolder], sidecarFolder],
      [['migrate', 'jsonl-to-v4', transcript, '--to', sidecarFolder], sidecarFolder],
    ];
    for (const [args, given] of runs)
      expect(await runCliChild(args), args.join(' ')).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: inside(given, transcript),
      });
    expect(await treeDigest(folder)).toBe(before);
    expect(await readdir(sidecarFolder)).toEqual([]);
    // Beside it, under names of its own, is fine.
    expect(
      (await runCliChild(['export', transcript, '--to', join(folder, 'legacy-demo.json'), '--format', 'json'])).code,
    ).toBe(0);
    expect((await runCliChild(['view', transcript, '--to', join(folder, 'legacy-demo.html')])).code).toBe(0);
  });

  it('a cursor file that is not one rxstore wrote is refused and left, with no word of removing it', async () => {
    const file = join(await tempDir('rxstore-cursor-'), 'notes.txt');
    await writeFile(file, 'my notes\n');
    const run = await runCliChild(['cat', plain.dir, '--records', '--cursor', file]);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `rxstore: RX_CURSOR_MISMATCH: ${file}: not a cursor rxstore wrote (not JSON); it is left as it is: name another file, or remove this one, to read the session from the start\n`,
    });
    expect(await readFile(file, 'utf8')).toBe('my notes\n');
  });
});

describe('a path of the wrong kind, or a folder that is not there, is RX_PATH_KIND, exit 2, on standard error, naming the path as given', () => {
  it('a folder as a cursor, a file as a folder above a page, an export, a site or a store', async () => {
    const base = await tempDir('rxstore-kind-given-');
    await mkdir(join(base, 'adir'));
    await writeFile(join(base, 'afile'), 'mine\n');
    const transcript = await transcriptCopy();
    const runs: [string[], string][] = [
      [['cat', plain.dir, '--records', '--cursor', 'adir'], 'adir: is a folder, a file is needed'],
      [
        ['cat', plain.dir, '--records', '--cursor', 'afile/cursor.json'],
        'afile/cursor.json: afile is a file, not a folder',
      ],
      [['view', plain.dir, '--to', 'afile/x.html'], 'afile/x.html: afile is a file, not a folder'],
      [['export', plain.dir, '--to', 'afile/x.html'], 'afile/x.html: afile is a file, not a folder'],
      [['export', plain.dir, '--to', 'afile/deeper/x.jsonl'], 'afile/deeper/x.jsonl: afile is a file, not a folder'],
      [['view', '--all', '--to', 'afile/sub', '--state-home', plain.root], 'afile/sub: afile is a file, not a folder'],
      [['migrate', 'jsonl-to-v4', transcript, '--to', 'afile/st'], 'afile/st: afile is a file, not a folder'],
      [['salvage', plain.dir, '--to', 'afile/st'], 'afile/st: afile is a file, not a folder'],
      [['salvage', transcript, '--to', 'afile/st'], 'afile/st: afile is a file, not a folder'],
    ];
    for (const [args, said] of runs)
      expect(await runCliChild(args, { cwd: base }), args.join(' ')).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${said}\n`,
      });
    expect((await readdir(base)).sort()).toEqual(['adir', 'afile']);
    expect(await readdir(join(base, 'adir'))).toEqual([]);
  });

  it('a --to folder that is not there is made by no command but view --all, and only when the folder above it is there', async () => {
    const base = await tempDir('rxstore-missing-to-');
    const transcript = await transcriptCopy();
    const runs: [string[], string][] = [
      [['salvage', plain.dir, '--to', 'store'], 'store: no such folder; create it first'],
      [['salvage', plain.dir, '--to', 'store', '--dry-run'], 'store: no such folder; create it first'],
      [['salvage', transcript, '--to', 'store'], 'store: no such folder; create it first'],
      [['migrate', 'jsonl-to-v4', transcript, '--to', 'store'], 'store: no such folder; create it first'],
      [['migrate', 'jsonl-to-v4', transcript, '--to', 'store', '--dry-run'], 'store: no such folder; create it first'],
      [
        ['migrate', 'jsonl-to-v4', transcript, '--to', 'typo/sessions-v4'],
        'typo/sessions-v4: no such folder; create it first',
      ],
      [['export', plain.dir, '--to', 'out/x.jsonl'], 'out/x.jsonl: no such folder out; create it first'],
      [['view', plain.dir, '--to', 'out/x.html'], 'out/x.html: no such folder out; create it first'],
      [
        ['cat', plain.dir, '--records', '--cursor', 'out/cursor.json'],
        'out/cursor.json: no such folder out; create it first',
      ],
      [
        ['view', '--all', '--to', 'out/site', '--state-home', plain.root],
        'out/site: no such folder out; create it first',
      ],
    ];
    for (const [args, said] of runs)
      expect(await runCliChild(args, { cwd: base }), args.join(' ')).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${said}\n`,
      });
    expect(await readdir(base)).toEqual([]);
    // view --all makes the site's own folder in one that is there.
    const made = await runCliChild(['view', '--all', '--to', 'site', '--state-home', plain.root], { cwd: base });
    expect(made.code, made.stderr).toBe(0);
    expect(await readdir(join(base, 'site'))).toEqual(expect.arrayContaining(['index.html', 'sessions']));
  });
});

describe('a file written over keeps its mode; a new one follows the umask, or in Reasonix’s store, Reasonix’s mode', () => {
  const mode = async (path: string) => (await stat(path)).mode & 0o777;

  it('view --to, export --force and a site keep the mode of the file they write over', async () => {
    const base = await tempDir('rxstore-keep-mode-');
    const page = join(base, 'b.html');
    const out = join(base, 'out.json');
    const to = join(base, 'site');
    expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
    expect((await runCliChild(['export', plain.dir, '--to', out, '--format', 'json'])).code).toBe(0);
    expect((await site(to)).code).toBe(0);
    const index = join(to, 'index.html');
    await chmod(page, 0o600);
    await chmod(out, 0o640);
    await chmod(index, 0o604);
    expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
    expect(
      (await runCliChild(['export', plain.dir, '--to', out, '--format', 'json', '--view', 'person', '--force'])).code,
    ).toBe(0);
    expect((await site(to)).code).toBe(0);
    expect(await mode(page)).toBe(0o600);
    expect(await mode(out)).toBe(0o640);
    expect(await mode(index)).toBe(0o604);
  });

  it.skipIf(!isRoot)(
    `written by root, a user’s file keeps its owner too${isRoot ? '' : ' — skipped: chown needs root (CI runs as root)'}`,
    async () => {
      const page = join(await tempDir('rxstore-keep-owner-'), 'b.html');
      expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
      await chown(page, 4321, 4322);
      await chmod(page, 0o640);
      expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
      expect(await stat(page)).toMatchObject({ uid: 4321, gid: 4322 });
      expect(await mode(page)).toBe(0o640);
    },
  );

  it('a salvaged transcript and an export follow the umask in a folder of the user’s, and are 0600 in a JSONL store of Reasonix’s (a `sessions` folder)', async () => {
    const umask = process.umask();
    const transcript = await transcriptCopy();
    const salvaged = await runCliChild(['salvage', transcript, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const { newPath } = JSON.parse(salvaged.stdout) as { newPath: string };
    expect(await mode(newPath)).toBe(0o666 & ~umask);
    expect(await mode(`${newPath}.meta`)).toBe(0o666 & ~umask);

    const store = join(await tempDir('rxstore-jsonl-store-'), 'sessions');
    await mkdir(store);
    const inStore = await runCliChild(['salvage', transcript, '--to', store, '--json']);
    expect(inStore.code, inStore.stderr).toBe(0);
    const { newPath: storePath } = JSON.parse(inStore.stdout) as { newPath: string };
    expect(await mode(storePath)).toBe(0o600);
    expect(await mode(`${storePath}.meta`)).toBe(0o600);
    expect((await runCliChild(['export', plain.dir, '--to', join(store, 'exported.jsonl')])).code).toBe(0);
    expect(await mode(join(store, 'exported.jsonl'))).toBe(0o600);
    expect(await mode(join(store, 'exported.jsonl.meta'))).toBe(0o600);
  });
});
