// Every write writes all its bytes or fails naming the path: short writes and ENOSPC at every write
// of every writing command (fail points), and a real nearly full file system (a small tmpfs, as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { cp, link, mkdir, readdir, readFile, realpath, rm, stat, statfs, truncate, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSystemErrorOf } from '../../src/errors/index.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { rxstoreBin, runCliChild, runNodeChild, type ChildResult } from '../support/cli-child.js';
import { forEachHit, hitsOf, tracedNames, type FailPointHit } from '../support/faults/fail-points.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { treeDigest } from '../support/tree-digest.js';

/** Temporary names rxstore writes beside what it publishes: none may be left after a failed write. */
const TEMP_NAME = /^\.rxstore-[0-9a-f]+\.tmp$|^\.tmp-rxstore-|\.tail\.tmp$|^\.append-.*\.staged$|^content-.*\.tmp$/;

async function tempNamesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (TEMP_NAME.test(entry.name)) found.push(join(dir, entry.name));
      if (entry.isDirectory()) await walk(join(dir, entry.name));
    }
  };
  await walk(root);
  return found;
}

/** Runs the CLI with a fault at one hit of a write point (or none), tracing every point it passes. */
async function runWithFault(
  args: string[],
  fault?: { point: FailPointHit; kind: 'short' | 'enospc' },
): Promise<{ run: ChildResult; hits: FailPointHit[] }> {
  const trace = join(await tempDir('rxstore-write-trace-'), 'trace');
  const env: NodeJS.ProcessEnv = { ...process.env, RXSTORE_FAIL_POINT_TRACE: trace };
  if (fault) env.RXSTORE_FAIL_POINT = `${fault.point.name}:${fault.point.hit}:${fault.kind}`;
  else delete env.RXSTORE_FAIL_POINT;
  const run = await runNodeChild([rxstoreBin, ...args], { env });
  return { run, hits: hitsOf((await tracedNames(trace)).filter((name) => name.startsWith('write.'))) };
}

/** A torn copy of a fixture: its last frame cut short, as a writer killed mid-append leaves it. */
async function tornSession(): Promise<string> {
  const dir = await copySession(fixture('tool-calls').dir);
  const log = join(dir, 'events.frames');
  await truncate(log, (await stat(log)).size - 7);
  return dir;
}

/** A JSONL transcript whose session takes more than `bytes` on disk (the text does not compress). */
async function bigTranscript(bytes: number): Promise<{ transcript: string; messages: number }> {
  const dir = await tempDir('rxstore-big-jsonl-');
  await mkdir(join(dir, 'sessions'));
  const lines = [JSON.stringify({ role: 'system', content: 'You are a test.' })];
  for (let turn = 0; turn < 8; turn += 1) {
    lines.push(JSON.stringify({ role: 'user', content: `question ${turn}` }));
    lines.push(JSON.stringify({ role: 'assistant', content: randomBytes(Math.ceil(bytes / 8)).toString('base64') }));
  }
  const transcript = join(dir, 'sessions', 'big.jsonl');
  await writeFile(transcript, `${lines.join('\n')}\n`);
  return { transcript, messages: lines.length };
}

/** One writing command, set up afresh for each run, and what must hold after it. */
interface Writer {
  name: string;
  /** Sets up a run: the arguments, the folder it writes in, and the check of a run that succeeded or failed. */
  prepare(): Promise<{
    args: string[];
    area: string;
    check(run: ChildResult, outcome: 'failed' | 'whole'): Promise<void>;
  }>;
}

const plain = fixture('tool-calls');

const writers: Writer[] = [
  {
    name: 'view --to a page (one rxstore wrote before)',
    async prepare() {
      const area = await tempDir('rxstore-w-view-');
      const page = join(area, 'page.html');
      expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
      const before = await readFile(page);
      return {
        args: ['view', plain.dir, '--to', page],
        area,
        // The old page stays as it was, or the new one is whole (the same session: the same page).
        check: async () => expect((await readFile(page)).equals(before)).toBe(true),
      };
    },
  },
  {
    name: 'view --all --to a site',
    async prepare() {
      const area = await tempDir('rxstore-w-site-');
      const site = join(area, 'site');
      return {
        args: ['view', '--all', '--to', site, '--state-home', plain.root],
        area,
        check: async (_run, outcome) => {
          if (outcome === 'failed') return;
          const state = JSON.parse(await readFile(join(site, 'rxstore-site.json'), 'utf8')) as {
            pages: { file: string }[];
          };
          expect(state.pages).toHaveLength(1);
          expect(await readFile(join(site, 'sessions', state.pages[0]!.file), 'utf8')).toMatch(/<\/html>\n$/);
          expect(await readFile(join(site, 'index.html'), 'utf8')).toMatch(/<\/html>\n$/);
        },
      };
    },
  },
  {
    name: 'export --to a transcript',
    async prepare() {
      const area = await tempDir('rxstore-w-export-');
      const out = join(area, 'out.jsonl');
      const expected = (await runCliChild(['export', plain.dir, '--to', '-'])).stdout;
      return {
        args: ['export', plain.dir, '--to', out],
        area,
        check: async (_run, outcome) => {
          if (outcome === 'whole') expect(await readFile(out, 'utf8')).toBe(expected);
          else
            expect(await readFile(out, 'utf8').catch(() => 'absent')).toMatch(
              new RegExp(`^(absent|${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})$`),
            );
        },
      };
    },
  },
  {
    name: 'migrate jsonl-to-v4 --to a store',
    async prepare() {
      const area = await tempDir('rxstore-w-migrate-');
      const { transcript, messages } = await bigTranscript(32 * 1024);
      const store = join(area, 'sessions-v4');
      await mkdir(store);
      const args = ['migrate', 'jsonl-to-v4', transcript, '--to', store];
      return {
        args,
        area,
        check: async (_run, outcome) => {
          // Whatever a failed run left, a re-run ends with the whole session: never "already migrated" for less.
          if (outcome === 'failed') {
            const again = await runCliChild(args);
            expect(again.code, again.stderr).toBe(0);
          }
          const sessions = (await readdir(store)).filter((name) => /^[0-9a-f]{24}$/.test(name));
          expect(sessions).toHaveLength(1);
          const read = await readSession(join(store, sessions[0]!));
          expect(read.status).toBe('ok');
          expect(read.projection.transcript).toHaveLength(messages);
        },
      };
    },
  },
  {
    name: 'salvage --to a store',
    async prepare() {
      const area = await tempDir('rxstore-w-salvage-');
      const damaged = await tornSession();
      const store = join(area, 'rescued');
      await mkdir(store);
      return {
        args: ['salvage', damaged, '--to', store],
        area,
        check: async (_run, outcome) => {
          const made = (await readdir(store)).filter((name) => !name.startsWith('.'));
          if (outcome === 'failed') expect(made).toEqual([]);
          else expect((await readSession(join(store, made[0]!))).status).toBe('ok');
        },
      };
    },
  },
  {
    name: 'repair of a torn tail',
    async prepare() {
      const dir = await tornSession();
      const before = await treeDigest(dir);
      return {
        args: ['repair', dir],
        area: dir,
        check: async (_run, outcome) => {
          if (outcome === 'failed') expect(await treeDigest(dir)).toBe(before);
          else expect((await readSession(dir)).status).toBe('ok');
        },
      };
    },
  },
  {
    name: 'cat --records --cursor',
    async prepare() {
      const area = await tempDir('rxstore-w-cursor-');
      const cursor = join(area, 'cursor.json');
      return {
        args: ['cat', plain.dir, '--records', '--cursor', cursor],
        area,
        check: async (_run, outcome) => {
          const text = await readFile(cursor, 'utf8').catch(() => undefined);
          if (outcome === 'failed') expect(text).toBeUndefined();
          else expect(JSON.parse(text!)).toMatchObject({ log: { offset: expect.any(Number) } });
        },
      };
    },
  },
];

describe('every write of every writing command writes all its bytes or fails naming the path (fail points)', () => {
  for (const writer of writers) {
    it(`${writer.name}: a short write is completed; ENOSPC fails with one coded line, exit 1, no temporary file, nothing cut published`, async () => {
      const clean = await writer.prepare();
      const { run, hits } = await runWithFault(clean.args);
      expect(run.code, run.stderr).toBe(0);
      expect(hits.length, 'the command writes through writeAll').toBeGreaterThan(0);
      await clean.check(run, 'whole');

      await forEachHit(hits, 4, async (point) => {
        const short = await writer.prepare();
        const shortRun = (await runWithFault(short.args, { point, kind: 'short' })).run;
        expect(shortRun.code, `short at ${point.name}:${point.hit}: ${shortRun.stderr}`).toBe(0);
        await short.check(shortRun, 'whole');

        const full = await writer.prepare();
        const failed = (await runWithFault(full.args, { point, kind: 'enospc' })).run;
        expect(failed.code, `ENOSPC at ${point.name}:${point.hit}: ${failed.stdout}`).toBe(1);
        // One coded line naming a path the user knows (never a temporary name), for a single-target command.
        // (migrate says it on the transcript's line, as it says every failure.)
        const line =
          `${failed.stderr}${failed.stdout}`.split('\n').find((text) => text.includes('RX_FILE_SYSTEM')) ?? '';
        expect(line, failed.stderr).toMatch(/\/[^ ]*: no space left on device/);
        expect(line).not.toMatch(
          /\.rxstore-[0-9a-f]+\.tmp|\.tmp-rxstore-|\.tail\.tmp|\.append-|\/content-[0-9a-f]+\.tmp/,
        );
        expect(await tempNamesUnder(full.area)).toEqual([]);
        await full.check(failed, 'failed');
      });
    }, 240_000);
  }
});

describe('a migration whose session is published but whose map entry cannot be written', () => {
  it('says both on its line, counts it failed, exits 1, and a run again records it', async () => {
    const area = await tempDir('rxstore-w-map-');
    const { transcript, messages } = await bigTranscript(8 * 1024);
    const store = join(area, 'sessions-v4');
    await mkdir(store);
    const args = ['migrate', 'jsonl-to-v4', transcript, '--to', store];
    const { hits } = await runWithFault(args);
    await rm(store, { recursive: true });
    await mkdir(store);
    // The map is written last, once the session is published.
    const { run } = await runWithFault(args, { point: hits.at(-1)!, kind: 'enospc' });
    expect(run.code, run.stderr).toBe(1);
    const [id] = (await readdir(store)).filter((name) => /^[0-9a-f]{24}$/.test(name));
    expect(run.stdout).toContain(
      `failed ${await realpath(transcript)}: ${join(store, 'migration-map.json')}: no space left on device (RX_FILE_SYSTEM); the session was published, but migration-map.json does not record it: the same command run again records it (${id} -> ${join(store, id!)}; resume: `,
    );
    expect(run.stdout).toMatch(/1 transcript: 0 migrated, 0 would be migrated, 0 already migrated, 1 failed\n$/);
    const read = await readSession(join(store, id!));
    expect(read.status).toBe('ok');
    expect(read.projection.transcript).toHaveLength(messages);
    await expect(readFile(join(store, 'migration-map.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await runCliChild(args);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/0 migrated, 0 would be migrated, 1 already migrated, 0 failed/);
    expect(await readFile(join(store, 'migration-map.json'), 'utf8')).toContain(id!);
  });
});

const isRoot = process.getuid?.() === 0;

describe('on a real file system that fills up (a small tmpfs)', () => {
  const mounts: string[] = [];
  afterAll(() => {
    for (const dir of mounts) execFileSync('umount', [dir]);
  });

  /** A tmpfs of `size` bytes, mounted for this test file, with all but about `free` bytes taken by a filler file. */
  async function nearlyFull(
    size: number,
  ): Promise<{ dir: string; fill(free: number): Promise<void>; unfill(): Promise<void> }> {
    const dir = await tempDir('rxstore-tmpfs-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
    mounts.push(dir);
    const filler = join(dir, 'filler');
    return {
      dir,
      async fill(free) {
        const stats = await statfs(dir);
        await writeFile(filler, Buffer.alloc(Math.max(0, stats.bavail * stats.bsize - free)));
      },
      unfill: () => rm(filler, { force: true }),
    };
  }

  it.skipIf(!isRoot)(
    `view --to, view --all --to, migrate and repair fail with the path and exit 1, publish nothing cut, leave no temporary file, and a re-run after space is freed does the whole job${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const disk = await nearlyFull(1024 * 1024);

      // A page rxstore wrote before stays as it was.
      const page = join(disk.dir, 'page.html');
      expect((await runCliChild(['view', plain.dir, '--to', page])).code).toBe(0);
      const pageBefore = await readFile(page);
      expect(pageBefore.length).toBeGreaterThan(8192);
      await disk.fill(4096);
      const view = await runCliChild(['view', plain.dir, '--to', page]);
      expect(view).toMatchObject({ code: 1, stderr: `rxstore: RX_FILE_SYSTEM: ${page}: no space left on device\n` });
      expect((await readFile(page)).equals(pageBefore)).toBe(true);

      const site = join(disk.dir, 'site');
      const all = await runCliChild(['view', '--all', '--to', site, '--state-home', plain.root]);
      expect(all.code).toBe(1);
      expect(all.stderr).toMatch(new RegExp(`^rxstore: RX_FILE_SYSTEM: ${site}/[^:]+: no space left on device\\n$`));
      expect(await readdir(join(site, 'sessions'))).toEqual([]);
      expect(await tempNamesUnder(disk.dir)).toEqual([]);

      // A migration cut by the full disk is not published; once there is room, a re-run migrates it whole.
      await disk.unfill();
      const { transcript, messages } = await bigTranscript(64 * 1024);
      const store = join(disk.dir, 'sessions-v4');
      await mkdir(store);
      await disk.fill(16 * 1024);
      const cut = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--to', store]);
      expect(cut.code).toBe(1);
      expect(cut.stdout).toMatch(/no space left on device \(RX_FILE_SYSTEM\)/);
      expect((await readdir(store)).filter((name) => !name.startsWith('.'))).toEqual([]);
      expect(await tempNamesUnder(disk.dir)).toEqual([]);
      await disk.unfill();
      const again = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--to', store]);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toMatch(/1 migrated/);
      const [id] = (await readdir(store)).filter((name) => /^[0-9a-f]{24}$/.test(name));
      const read = await readSession(join(store, id!));
      expect(read.status).toBe('ok');
      expect(read.projection.transcript).toHaveLength(messages);

      // repair keeps the cut bytes as evidence first: with no room for them, it changes nothing and leaves no .tail.tmp.
      const source = await tornSession();
      const torn = join(disk.dir, 'sessions-v4', basename(source));
      await cp(source, torn, { recursive: true });
      const tornBefore = await treeDigest(torn);
      await disk.fill(0);
      const repair = await runCliChild(['repair', torn]);
      expect(repair.code).toBe(1);
      expect(repair.stderr).toMatch(
        new RegExp(`^rxstore: RX_FILE_SYSTEM: ${torn}/events\\.torn-\\d+\\.tail: no space left on device\\n$`),
      );
      expect(await treeDigest(torn)).toBe(tornBefore);
      expect(await tempNamesUnder(disk.dir)).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!isRoot)(
    `a disk out of inodes is said as no space, naming what could not be made: a folder, a link's new name${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const dir = await tempDir('rxstore-inodes-');
      // Its own folder and two files take the three inodes it has.
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,nr_inodes=3', 'tmpfs', dir]);
      mounts.push(dir);
      await writeFile(join(dir, 'a'), 'a');
      await writeFile(join(dir, 'b'), 'b');
      const site = join(dir, 'site');
      const run = await runCliChild(['view', '--all', '--state-home', plain.root, '--to', site]);
      expect(run).toMatchObject({ code: 1, stderr: `rxstore: RX_FILE_SYSTEM: ${site}: no space left on device\n` });
      // A cache folder too: said as no space, naming the first folder that could not be made.
      const listed = await runCliChild(['ls', '--state-home', plain.root, '--json'], {
        env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') },
      });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stderr).toBe(
        `rxstore: warning: RX_FILE_SYSTEM: ${join(dir, 'cache')}: no space left on device; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
      );
      const linked = await link(join(dir, 'a'), join(dir, 'c')).catch((error: unknown) => fileSystemErrorOf(error));
      expect(linked).toMatchObject({ code: 'RX_FILE_SYSTEM', data: { file: join(dir, 'c'), errno: 'ENOSPC' } });
    },
  );

  it.skipIf(!isRoot)(
    `standard output redirected to a file on a full disk: every command says so and exits 1, never a cut output and exit 0${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const disk = await nearlyFull(1024 * 1024);
      const out = join(disk.dir, 'out');
      // Every fixture in one state root: a listing of several kilobytes.
      const machine = await tempDir('rxstore-full-stdout-');
      for (const name of ['titled', 'compacted', 'tool-calls', 'plain-chat', 'cjk-emoji', 'payload-ref'] as const)
        await cp(join(fixture(name).root, 'projects'), join(machine, 'projects'), { recursive: true });
      const commands = [
        ['cat', fixture('compacted').dir, '--records'],
        ['ls', '--state-home', machine, '--json'],
        ['view', fixture('compacted').dir],
        ['inspect', fixture('compacted').dir, '--messages'],
        ['search', 'the', '--json', '--around', '2', '--state-home', plain.root, '--no-index'],
      ];
      for (const args of commands) {
        const whole = await runCliChild(args);
        expect(whole.code, `${args.join(' ')}: ${whole.stderr}`).toBe(0);
        expect(Buffer.byteLength(whole.stdout), args.join(' ')).toBeGreaterThan(8192);
        // Room for some of the output, not all: a write that only partly fits is one the system cuts short.
        await rm(out, { force: true });
        await disk.fill(4096);
        const fd = openSync(out, 'w');
        let run: ReturnType<typeof spawnSync>;
        try {
          run = spawnSync(process.execPath, [rxstoreBin, ...args], {
            stdio: ['ignore', fd, 'pipe'],
            encoding: 'utf8',
          });
        } finally {
          closeSync(fd);
        }
        expect(run.status, args.join(' ')).toBe(1);
        expect(run.stderr, args.join(' ')).toBe('rxstore: RX_FILE_SYSTEM: standard output: no space left on device\n');
        expect((await stat(out)).size).toBeLessThan(Buffer.byteLength(whole.stdout));
        await disk.unfill();
      }
    },
    120_000,
  );

  it.skipIf(!isRoot)(
    `a search whose cache folder is full answers from the stores after a warning, and uses its index again once there is room${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const disk = await nearlyFull(4 * 1024 * 1024);
      const env = { ...process.env, XDG_CACHE_HOME: disk.dir };
      const search = (query: string) => runCliChild(['search', query, '--json', '--state-home', plain.root], { env });
      const expected = await runCliChild(['search', 'files', '--json', '--state-home', plain.root, '--no-index'], {
        env,
      });
      expect(expected.code, expected.stderr).toBe(0);
      // No room at all: the search answers, and leaves no empty index behind.
      await disk.fill(0);
      const none = await search('files');
      expect(none).toMatchObject({ code: 0, stdout: expected.stdout });
      expect(none.stderr).toBe(
        `rxstore: warning: RX_FILE_SYSTEM: the search index in ${disk.dir}/rxstore cannot be written (no space left on device); searched the stores directly\n`,
      );
      await expect(stat(join(disk.dir, 'rxstore', 'search-index.sqlite'))).rejects.toMatchObject({ code: 'ENOENT' });
      await disk.unfill();
      // No room for an index at all, then none for it to grow.
      await disk.fill(16 * 1024);
      for (const query of ['files', 'nowhere-said']) {
        const run = await search(query);
        expect(run.code, run.stderr).toBe(query === 'files' ? 0 : 1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^rxstore: warning: RX_FILE_SYSTEM: the search index in ${disk.dir}/rxstore cannot be written \\(no space left on device\\); searched the stores directly\n$`,
          ),
        );
        if (query === 'files') expect(run.stdout).toBe(expected.stdout);
      }
      await disk.unfill();
      const room = await search('files');
      expect(room).toMatchObject({ code: 0, stderr: '', stdout: expected.stdout });
      expect((await stat(join(disk.dir, 'rxstore', 'search-index.sqlite'))).size).toBeGreaterThan(0);
    },
    60_000,
  );

  it.skipIf(!isRoot)(
    `an index that cannot grow on a full disk is kept as it was, never removed as damaged, and grows once there is room${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const disk = await nearlyFull(4 * 1024 * 1024);
      const env = { ...process.env, XDG_CACHE_HOME: disk.dir };
      const machine = await tempDir('rxstore-full-index-');
      for (const name of ['titled', 'compacted', 'tool-calls', 'plain-chat', 'cjk-emoji', 'payload-ref'] as const)
        await cp(join(fixture(name).root, 'projects'), join(machine, 'projects'), { recursive: true });
      const search = (...more: string[]) =>
        runCliChild(['search', 'the', '--json', '--state-home', machine, ...more], { env });
      expect((await search()).code).toBe(0);
      const index = join(disk.dir, 'rxstore', 'search-index.sqlite');
      const before = await readFile(index);
      // A session more to index, and no room for it.
      await cp(join(fixture('interrupted').root, 'projects'), join(machine, 'projects'), { recursive: true });
      await disk.fill(4096);
      const full = await search();
      expect(full.code, full.stderr).toBe(0);
      expect(full.stderr).toBe(
        `rxstore: warning: RX_FILE_SYSTEM: the search index in ${disk.dir}/rxstore cannot be written (no space left on device); searched the stores directly\n`,
      );
      expect((await readFile(index)).equals(before)).toBe(true);
      await disk.unfill();
      const room = await search();
      expect(room).toMatchObject({ code: 0, stderr: '', stdout: (await search('--no-index')).stdout });
    },
    60_000,
  );

  it.skipIf(!isRoot)(
    `on a read-only file system, salvage and migrate name the session they were to write, never their staging folder${isRoot ? '' : ' — skipped: mounting a tmpfs needs root (CI runs as root)'}`,
    async () => {
      const disk = await nearlyFull(1024 * 1024);
      const store = join(disk.dir, 'sessions-v4');
      await mkdir(store);
      execFileSync('mount', ['-o', 'remount,ro', disk.dir]);
      const salvaged = await runCliChild(['salvage', await tornSession(), '--to', store]);
      expect(salvaged.code).toBe(1);
      expect(salvaged.stderr).toMatch(
        new RegExp(`^rxstore: RX_FILE_SYSTEM: ${store}/[0-9a-f]{32}: read-only file system\n$`),
      );
      const { transcript } = await bigTranscript(1024);
      const migrated = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--to', store]);
      expect(migrated.code).toBe(1);
      expect(migrated.stdout).toMatch(
        new RegExp(`: ${store}/[0-9a-f]{24}: read-only file system \\(RX_FILE_SYSTEM\\)`),
      );
      expect(`${salvaged.stderr}${migrated.stdout}`).not.toMatch(/tmp-rxstore/);
    },
    60_000,
  );
});

describe('a migration target that does not verify is never counted as migrated', () => {
  it.skipIf(!reasonixBinary())(
    reasonixTitle(
      'a target cut inside its import (as a full disk left it before) is set aside, migrated again whole, and the real Reasonix resumes it beside the set-aside copy',
    ),
    async () => {
      const base = await realpath(await tempDir('rxstore-cut-migration-'));
      const [home, workspace] = [join(base, 'home'), join(base, 'ws')];
      await Promise.all([mkdir(home), mkdir(workspace)]);
      const { transcript, messages } = await bigTranscript(32 * 1024);
      const args = ['migrate', 'jsonl-to-v4', transcript, '--home', home, '--cwd', workspace];
      expect((await runCliChild(args)).code).toBe(0);
      const store = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions-v4');
      const [id] = (await readdir(store)).filter((name) => /^[0-9a-f]{24}$/.test(name));
      // What the earlier code published on a full disk: the log cut at 16 KiB, inside the first batch.
      await truncate(join(store, id!, 'events.frames'), 16 * 1024);
      expect((await readSession(join(store, id!))).projection.transcript).toHaveLength(0);

      const again = await runCliChild(args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/1 migrated, 0 would be migrated, 0 already migrated, 0 failed/);
      const aside = /it was moved to (\S+) and migrated again/.exec(again.stdout)?.[1];
      expect(aside).toMatch(new RegExp(`^${store}/\\.${id}\\.unverified-rxstore-[0-9a-f]{12}$`));
      expect((await stat(join(aside!, 'events.frames'))).size).toBe(16 * 1024);
      const read = await readSession(join(store, id!));
      expect(read.status).toBe('ok');
      expect(read.projection.transcript).toHaveLength(messages);
      // A third run finds it whole.
      expect((await runCliChild(args)).stdout).toMatch(/0 migrated, 0 would be migrated, 1 already migrated/);

      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        const resumed = await runReasonix({
          home,
          cwd: workspace,
          args: ['run', '--resume', id!, 'Still there?'],
          mock,
        });
        expect(resumed.code, resumed.stderr).toBe(0);
        // The model is sent every message of the transcript (Reasonix may add its own context around them).
        const sent = mock.chatRequests()[0]!.messages.map((message) => message.content);
        const lines = (await readFile(transcript, 'utf8'))
          .trimEnd()
          .split('\n')
          .map((line) => (JSON.parse(line) as { content: string }).content);
        expect(sent).toEqual(expect.arrayContaining([...lines, 'Still there?']));
      } finally {
        await mock.close();
      }
    },
    120_000,
  );
});

describe('what a write leaves, and what it names', () => {
  it('a file name of 250 bytes, which the system allows, is written: the temporary name beside it is short whatever the name', async () => {
    const base = await tempDir('rxstore-long-name-');
    const name = (ext: string) => `${'n'.repeat(250 - ext.length)}${ext}`;
    const runs = [
      ['view', plain.dir, '--to', name('.html')],
      ['view', plain.dir, '--to', name('.md')],
      ['export', plain.dir, '--to', name('.json'), '--format', 'json'],
      ['cat', plain.dir, '--records', '--cursor', name('.cursor')],
    ];
    for (const args of runs) {
      const run = await runCliChild(args, { cwd: base });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    expect(Buffer.byteLength(name('.cursor'))).toBe(250);
    expect((await readdir(base)).sort()).toEqual([name('.cursor'), name('.html'), name('.json'), name('.md')].sort());
  });

  it('a salvage or a migration that fails removes the content objects it wrote, and only those', async () => {
    // payload-ref holds payloads large enough for the content store.
    const source = await copySession(fixture('payload-ref').dir);
    const { transcript } = await bigTranscript(600 * 1024);
    const runs = [
      { args: (store: string) => ['salvage', source, '--to', store], point: 'write.create-log' },
      { args: (store: string) => ['migrate', 'jsonl-to-v4', transcript, '--to', store], point: 'write.create-log' },
    ];
    for (const { args, point } of runs) {
      const store = join(await tempDir('rxstore-orphans-'), 'sessions-v4');
      await mkdir(store);
      const { hits } = await runWithFault(args(store));
      expect(await readdir(join(store, '.content-v1', 'objects'), { recursive: true })).not.toEqual([]);
      const last = hits.filter((hit) => hit.name === point).at(-1)!;
      // A clean store: the failed run leaves nothing at all in it.
      const clean = join(await tempDir('rxstore-orphans-'), 'sessions-v4');
      await mkdir(clean);
      const failed = (await runWithFault(args(clean), { point: last, kind: 'enospc' })).run;
      expect(`${failed.stderr}${failed.stdout}`).toMatch(/no space left on device/);
      expect(await readdir(clean, { recursive: true })).toEqual([]);
      // A store that held the same objects before: they are still there, as they were.
      const shared = join(await tempDir('rxstore-orphans-'), 'sessions-v4');
      await cp(join(store, '.content-v1'), join(shared, '.content-v1'), { recursive: true });
      const before = await treeDigest(shared);
      expect((await runWithFault(args(shared), { point: last, kind: 'enospc' })).run.code).toBe(1);
      expect(await treeDigest(shared)).toBe(before);
      expect((await readdir(shared)).filter((name) => !name.startsWith('.'))).toEqual([]);
    }
  }, 120_000);

  it('export’s line, like view’s, shows control characters in the path escaped, never raw', async () => {
    const base = await tempDir('rxstore-export-line-');
    const out = join(base, 'a\rb\x1b[2J.jsonl');
    for (const run of [
      await runCliChild(['export', plain.dir, '--to', out]),
      await runCliChild(['export', plain.dir, '--to', out]),
    ]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(/[\r\x1b]/);
      expect(run.stdout).toContain(`${base}/a\\rb\\x1b[2J.jsonl`);
    }
    const page = await runCliChild(['view', plain.dir, '--to', join(base, 'a\rb.html')]);
    expect(page.stdout).toContain(`${base}/a\\rb.html`);
  });
});
