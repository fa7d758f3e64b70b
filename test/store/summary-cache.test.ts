import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmod,
  copyFile,
  cp,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { appendBatch, endFrames, framesOf, logOf } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { layForResume, reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { runCli } from '../support/inspect-json-schema.js';
import { buildStateRoot, type BuiltMachine } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';
import { cachePerTest } from '../support/cache-per-test.js';
import { rxstoreBin } from '../support/cli-child.js';

/** `rxstore ls --json` of the machine (or a state root), with the summary cache in `XDG_CACHE_HOME`. */
async function ls(machine: BuiltMachine | string, ...extra: string[]): Promise<ListedSession[]> {
  const run = await runCli([
    'ls',
    '--state-home',
    typeof machine === 'string' ? machine : machine.stateRoot,
    '--json',
    ...extra,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ListedSession[];
}

const checked = (sessions: ListedSession[]) =>
  sessions.flatMap((session) => session.copies.map((copy) => copy.checked));
/** A row as it reads, without how it was checked. */
const facts = (sessions: ListedSession[]) =>
  sessions.map(({ checked: _, copies, ...row }) => ({
    ...row,
    copies: copies.map(({ checked: __, ...copy }) => copy),
  }));

describe('ls keeps a summary cache, like git keeps its index', () => {
  let cacheDir: string;
  let before: string | undefined;
  beforeEach(async () => {
    before = process.env.XDG_CACHE_HOME;
    cacheDir = await tempDir('rxstore-cache-');
    process.env.XDG_CACHE_HOME = cacheDir;
  });
  afterEach(() => {
    process.env.XDG_CACHE_HOME = before;
  });
  const cacheFile = () => join(cacheDir, 'rxstore', 'summaries-v22.json');

  it('an unchanged session is not read again; a changed one is; the rows say which, and read the same', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    expect(new Set(checked(first))).toEqual(new Set(['now']));
    const second = await ls(machine);
    expect(facts(second)).toEqual(facts(first));
    // Every copy that told something came from the cache; the damaged one too: its verdict is kept.
    expect(checked(second).filter((how) => how === 'now')).toEqual([]);

    const toolCalls = first.find((session) => session.id === machine.ids.toolCalls)!;
    await appendBatch(toolCalls.path, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-cache-new', content: 'one more', origin: 'user' } },
      },
    ]);
    const third = await ls(machine);
    const changed = third.find((session) => session.id === machine.ids.toolCalls)!;
    expect(changed.checked).toBe('appended');
    expect(changed.messages).toBe(toolCalls.messages + 1);
    expect(
      third.filter((session) => session.id !== machine.ids.toolCalls).every((session) => session.checked === 'cache'),
    ).toBe(true);
  });

  it('a batch appended that uses an earlier operation id again is read whole, and refused as Reasonix refuses it', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    const toolCalls = first.find((session) => session.id === machine.ids.toolCalls)!;
    const begins = (await framesOf(toolCalls.path)).filter((frame) => frame.record.recordType === 'batch/begin');
    for (const reused of [begins[0]!, begins.at(-1)!].map((frame) => frame.record.operationId as string)) {
      const dir = await tempDir('rxstore-reused-');
      await copyFile(join(toolCalls.path, 'manifest.json'), join(dir, 'manifest.json'));
      await copyFile(logOf(toolCalls.path), join(dir, 'events.frames'));
      await appendBatch(toolCalls.path, [{ kind: 'session/title', payload: { title: 'taken again' } }], {
        operationId: reused,
      });
      const row = (await ls(machine)).find((session) => session.id === machine.ids.toolCalls)!;
      expect(row).toMatchObject({ status: 'damaged', checked: 'now' });
      expect(row.problem).toContain(`conflicting operation ${JSON.stringify(reused)}`);
      // Put back as it was: read from the cache again, then from its resume point when appended to.
      await copyFile(join(dir, 'events.frames'), logOf(toolCalls.path));
      expect((await ls(machine)).find((session) => session.id === machine.ids.toolCalls)).toMatchObject({
        status: 'ok',
      });
    }
  });

  it('a batch retried after the cursor (its operation id and hash again) is read from the resume point, as the whole read takes it', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    const toolCalls = first.find((session) => session.id === machine.ids.toolCalls)!;
    const title = [{ kind: 'session/title', payload: { title: 'said twice' } }];
    await appendBatch(toolCalls.path, title, { operationId: 'retried-title' });
    expect((await ls(machine)).find((session) => session.id === machine.ids.toolCalls)!.checked).toBe('appended');
    // The same operation again, after the cursor that holds it: the earlier batch's hash is read back, and matches.
    await appendBatch(toolCalls.path, title, { operationId: 'retried-title' });
    const listed = await ls(machine);
    const row = listed.find((session) => session.id === machine.ids.toolCalls)!;
    expect(row).toMatchObject({ status: 'ok', checked: 'appended', title: 'said twice' });
    expect(facts(listed)).toEqual(facts(await ls(machine, '--no-cache')));
  });

  it('a writer.lock turned into a directory, or put right, is seen at once, the log untouched or grown', async () => {
    const machine = await buildStateRoot();
    const copyOf = (sessions: ListedSession[]) =>
      sessions
        .find((session) => session.id === machine.ids.plainChat)!
        .copies.find((copy) => copy.store === 'sessions-v4')!;
    const lock = join(copyOf(await ls(machine)).path, 'writer.lock');
    await rm(lock, { force: true });
    await mkdir(lock);
    const blocked = copyOf(await ls(machine));
    expect(blocked).toMatchObject({ status: 'damaged', checked: 'now' });
    expect(blocked.problem).toContain('writer.lock is a directory');
    await rename(lock, `${lock}.aside`);
    expect(copyOf(await ls(machine))).toMatchObject({ status: 'ok', checked: 'now', problem: null });
    expect(copyOf(await ls(machine))).toMatchObject({ status: 'ok', checked: 'cache' });
    // Blocked again while the log grew: not the appended batches alone, but the verdict.
    await mkdir(lock);
    await appendBatch(copyOf(await ls(machine, '--no-cache')).path, [
      { kind: 'session/title', payload: { title: 'grown' } },
    ]);
    expect(copyOf(await ls(machine))).toMatchObject({ status: 'damaged', checked: 'now' });
  });

  it('a corrupt cache file, or a bad entry in it, is never trusted: those sessions are read again', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    const kept = JSON.parse(await readFile(cacheFile(), 'utf8')) as {
      entries: Record<string, { summary: { status: string } }>;
    };
    const [path] = Object.keys(kept.entries);
    kept.entries[path!]!.summary.status = 'splendid';
    await writeFile(cacheFile(), JSON.stringify(kept));
    const second = await ls(machine);
    const copies = second.flatMap((session) => session.copies);
    expect(copies.find((copy) => copy.path === path)!.checked).toBe('now');
    expect(copies.filter((copy) => copy.path !== path).every((copy) => copy.checked === 'cache')).toBe(true);
    await writeFile(cacheFile(), 'not json at all');
    const third = await ls(machine);
    expect(new Set(checked(third))).toEqual(new Set(['now']));
    expect(facts(third)).toEqual(facts(first));
  });

  it('resume points are kept apart: a listing of unchanged sessions needs none, and a foreign or spoilt file of them only costs a whole read', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    const points = join(cacheDir, 'rxstore', 'resume-points-v22.json');
    // Unreadable as JSON, and then gone: the summaries alone answer every unchanged session.
    await writeFile(points, '{"version": 3, "entries": {');
    expect(new Set(checked(await ls(machine)))).toEqual(new Set(['cache']));
    await rm(points);
    expect(new Set(checked(await ls(machine)))).toEqual(new Set(['cache']));

    // Without its resume point, an appended log is read whole, and gives the same row as a cold read.
    const toolCalls = first.find((session) => session.id === machine.ids.toolCalls)!;
    await appendBatch(toolCalls.path, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-cache-apart', content: 'one more', origin: 'user' } },
      },
    ]);
    const appended = (await ls(machine)).find((session) => session.id === machine.ids.toolCalls)!;
    expect(appended.checked).toBe('now');
    expect(appended.messages).toBe(toolCalls.messages + 1);
    // That read kept a point again: the next append is read from it.
    await appendBatch(toolCalls.path, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-cache-apart-2', content: 'and more', origin: 'user' } },
      },
    ]);
    const next = (await ls(machine)).find((session) => session.id === machine.ids.toolCalls)!;
    expect(next).toMatchObject({ checked: 'appended', messages: toolCalls.messages + 2 });
    expect(facts([next])).toEqual(
      facts((await ls(machine, '--no-cache')).filter((session) => session.id === machine.ids.toolCalls)),
    );
  });

  it('--no-cache reads every log and leaves the cache alone; --verify reads every log too', async () => {
    const machine = await buildStateRoot();
    await ls(machine);
    const { mtimeMs } = await stat(cacheFile());
    const bytes = await readFile(cacheFile());
    expect(new Set(checked(await ls(machine, '--no-cache')))).toEqual(new Set(['now']));
    expect(await readFile(cacheFile())).toEqual(bytes);
    expect((await stat(cacheFile())).mtimeMs).toBe(mtimeMs);
    const verified = await runCli(['ls', '--state-home', machine.stateRoot, '--json', '--verify']);
    expect(verified.code).toBe(1); // the machine holds a damaged session
    expect(new Set(checked(JSON.parse(verified.stdout) as ListedSession[]))).toEqual(new Set(['now']));
  });
});

describe('an appended log costs only its new batches; anything else is read whole', () => {
  cachePerTest();
  const row = (sessions: ListedSession[], id: string) => sessions.find((session) => session.id === id)!;

  /** A fixture session alone in a state root of its own. */
  async function alone(name: Parameters<typeof fixture>[0]) {
    const source = fixture(name);
    const home = await tempDir('rxstore-appended-');
    return { source, home, dir: await layForResume(source.dir, home, source.workspace) };
  }

  it('reads from where the last ls stopped: a byte spoilt before that is not seen until --verify', async () => {
    const { source, home, dir } = await alone('plain-chat');
    await ls(home);
    const [, second] = await framesOf(dir);
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-appended-1', content: 'and then?', origin: 'user' } },
      },
    ]);
    // Spoil a byte in the log's first batch (neither in its first bytes nor just before the old end, which the cursor hashes).
    const log = await readFile(logOf(dir));
    const at = second!.offset + 12 + Math.floor((second!.bytes - 12) / 2);
    log[at] = log[at]! ^ 0xff;
    await writeFile(logOf(dir), log);
    const appended = row(await ls(home), source.id);
    expect(appended.checked).toBe('appended');
    expect(appended.status).toBe('ok');
    const verified = await runCli(['ls', '--state-home', home, '--json', '--verify']);
    expect(verified.code).toBe(1);
    expect(row(JSON.parse(verified.stdout) as ListedSession[], source.id)).toMatchObject({
      checked: 'now',
      status: 'damaged',
    });
  });

  it('a log cut and written again, or another file put in its place, is read whole', async () => {
    const { source, home, dir } = await alone('tool-calls');
    await ls(home);
    const message = (id: string) => [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id, content: `question ${id}`, origin: 'user' } },
      },
    ];
    // A repair cut the last batch; a writer appended after the cut: the bytes before the old end changed.
    const ends = await endFrames(dir);
    const lastButOne = ends.at(-2)!;
    await truncate(logOf(dir), lastButOne.offset + lastButOne.bytes);
    await appendBatch(dir, message('rx-after-cut'));
    const cut = await ls(home);
    expect(row(cut, source.id).checked).toBe('now');
    expect(facts(cut)).toEqual(facts(await ls(home, '--no-cache')));
    // The same bytes and one batch more, but in a new file renamed over the log.
    const copy = join(dir, 'events.frames.new');
    await copyFile(logOf(dir), copy);
    await rename(copy, logOf(dir));
    await appendBatch(dir, message('rx-new-file'));
    const replaced = await ls(home);
    expect(row(replaced, source.id).checked).toBe('now');
    expect(facts(replaced)).toEqual(facts(await ls(home, '--no-cache')));
  });

  it('an appended batch that takes back or repeats what was written before is read whole', async () => {
    const { source, home, dir } = await alone('plain-chat');
    const first = row(await ls(home), source.id);
    const retract = [{ kind: 'message/retract', payload: { messageIds: ['rx-nothing-such'] } }];
    await appendBatch(dir, retract);
    expect(row(await ls(home), source.id).checked).toBe('now');
    // A message id the log already holds: Reasonix refuses the session, and so does the listing.
    const kept = JSON.parse(
      await readFile(join(process.env.XDG_CACHE_HOME!, 'rxstore', 'resume-points-v22.json'), 'utf8'),
    ) as { entries: Record<string, unknown> };
    expect(kept.entries[dir]).toBeDefined();
    const repeated = (await readSession(dir)).projection.transcript.find(({ message }) => message.id !== undefined)!
      .message.id!;
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: repeated, content: 'again', origin: 'user' } },
      },
    ]);
    const again = row(await ls(home), source.id);
    expect(again).toMatchObject({ checked: 'now', status: 'damaged' });
    expect(again.problem).toMatch(/duplicate stable message id/);
    expect(first.status).toBe('ok');
  });

  it('a submission receipt that conflicts with one before it is read whole and refused, as Reasonix refuses it', async () => {
    const { source, home, dir } = await alone('plain-chat');
    const receipt = (fingerprint: string) => ({
      kind: 'submission/accepted',
      optional: true,
      payload: { sessionId: source.id, submissionId: 's1', fingerprint, turnId: 't1', messageId: 'm1' },
    });
    await appendBatch(dir, [receipt('f')], { turnId: 't1' });
    expect(row(await ls(home), source.id).status).toBe('ok');
    await appendBatch(dir, [receipt('f')], { turnId: 't1' });
    expect(row(await ls(home), source.id)).toMatchObject({ checked: 'now', status: 'ok' });
    await appendBatch(dir, [receipt('g')], { turnId: 't1' });
    const conflicting = row(await ls(home), source.id);
    expect(conflicting).toMatchObject({ checked: 'now', status: 'damaged' });
    expect(conflicting.problem).toMatch(/conflicting submission receipt/);
  });

  it('two listings at once both answer whole, and leave a cache the next one trusts', async () => {
    const machine = await buildStateRoot();
    const [one, two] = await Promise.all([ls(machine), ls(machine)]);
    expect(facts(one)).toEqual(facts(two));
    const third = await ls(machine);
    expect(facts(third)).toEqual(facts(one));
    expect(third.filter((session) => session.checked === 'cache').length).toBeGreaterThan(0);
  });
});

describe.skipIf(!reasonixBinary())(reasonixTitle('ls after the real Reasonix appended to a session'), () => {
  cachePerTest();

  it.each(['tool-calls', 'titled', 'payload-ref', 'compacted', 'jsonl-migrated'] as const)(
    '%s: only the new batches are read, and the row is what reading the whole log gives',
    async (name) => {
      const source = fixture(name);
      const home = await tempDir('rxstore-appended-');
      await layForResume(source.dir, home, source.workspace);
      const first = (await ls(home)).find((session) => session.id === source.id)!;
      expect(first.checked).toBe('now');
      const mock = await startMockModel([
        {
          text: 'Checking.',
          toolCalls: [{ id: `call_${name}`, name: 'bash', arguments: { command: 'echo appended' } }],
        },
        { text: 'It printed appended.' },
      ]);
      try {
        const run = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', source.id, 'Run echo appended.'],
          mock,
          permissionMode: 'danger-full-access',
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await mock.close();
      }
      const again = await ls(home);
      const appended = again.find((session) => session.id === source.id)!;
      expect(appended.checked).toBe('appended');
      expect(appended.messages).toBeGreaterThan(first.messages);
      expect(facts(again)).toEqual(facts(await ls(home, '--no-cache')));
      // Unchanged since: from the cache alone.
      expect((await ls(home)).find((session) => session.id === source.id)!.checked).toBe('cache');
    },
  );
});

describe('the cache folder and files, when they are not what they should be', () => {
  /** `rxstore ls --json` of a machine, with the cache under `cacheHome`. */
  async function lsWithCacheHome(machine: BuiltMachine, cacheHome: string) {
    const before = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
    try {
      return await runCli(['ls', '--state-home', machine.stateRoot, '--json']);
    } finally {
      process.env.XDG_CACHE_HOME = before;
    }
  }

  it('a FIFO, a link, a folder or a hard link in place of a cache file is no cache (never a wait, never read through), and is left as it is, said on every run', async () => {
    const machine = await buildStateRoot();
    const notSaved = (path: string, kind: string) =>
      `rxstore: warning: RX_NOT_REGULAR_FILE: ${path} is ${kind}, not a cache file rxstore made; it is left as it is: remove it to have the cache kept; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`;
    // A whole cache of this very machine, elsewhere: a link to it is never read (every copy is read now).
    const made = await tempDir('rxstore-cache-made-');
    expect((await lsWithCacheHome(machine, made)).code).toBe(0);
    const elsewhere = join(await tempDir('rxstore-cache-target-'), 'theirs.json');
    await copyFile(join(made, 'rxstore', 'summaries-v22.json'), elsewhere);
    const theirs = await readFile(elsewhere, 'utf8');
    const planted: [string, (path: string) => Promise<void>, (path: string) => Promise<boolean>][] = [
      ['a FIFO', async (path) => void execFileSync('mkfifo', [path]), async (path) => (await lstat(path)).isFIFO()],
      [
        'a symbolic link',
        (path) => symlink(elsewhere, path),
        async (path) => (await readlink(path)) === elsewhere && (await readFile(elsewhere, 'utf8')) === theirs,
      ],
      ['a folder', (path) => mkdir(path), async (path) => (await lstat(path)).isDirectory()],
      [
        'a file with 2 names (a hard link)',
        // A file of its own each time: the other name is in a folder of the user's.
        async (path) => {
          const own = join(await tempDir('rxstore-cache-target-'), 'theirs.json');
          await copyFile(elsewhere, own);
          await link(own, path);
        },
        async (path) => (await lstat(path)).nlink === 2 && (await readFile(path, 'utf8')) === theirs,
      ],
    ];
    const cacheFolder = async () => {
      const cacheHome = await tempDir('rxstore-cache-');
      await mkdir(join(cacheHome, 'rxstore'));
      return { cacheHome, folder: join(cacheHome, 'rxstore') };
    };
    for (const [kind, plant, standsAsItWas] of planted) {
      for (const name of ['summaries-v22.json', 'resume-points-v22.json']) {
        const { cacheHome, folder } = await cacheFolder();
        const path = join(folder, name);
        await plant(path);
        const run = await lsWithCacheHome(machine, cacheHome);
        expect(run.code, run.stderr).toBe(0);
        expect(new Set(checked(JSON.parse(run.stdout) as ListedSession[])), `${kind} as ${name}`).toEqual(
          new Set(['now']),
        );
        expect(run.stderr, `${kind} as ${name}`).toBe(notSaved(path, kind));
        expect(await standsAsItWas(path), `${kind} as ${name}`).toBe(true);
      }
    }
    // Said again when nothing else is to be saved, and each file saved whatever became of the other.
    const { cacheHome, folder } = await cacheFolder();
    execFileSync('mkfifo', [join(folder, 'resume-points-v22.json')]);
    await lsWithCacheHome(machine, cacheHome);
    const again = await lsWithCacheHome(machine, cacheHome);
    expect(new Set(checked(JSON.parse(again.stdout) as ListedSession[]))).toEqual(new Set(['cache']));
    expect(again.stderr).toBe(notSaved(join(folder, 'resume-points-v22.json'), 'a FIFO'));
    const both = await cacheFolder();
    for (const name of ['summaries-v22.json', 'resume-points-v22.json'])
      execFileSync('mkfifo', [join(both.folder, name)]);
    expect((await lsWithCacheHome(machine, both.cacheHome)).stderr).toBe(
      notSaved(join(both.folder, 'summaries-v22.json'), 'a FIFO') +
        notSaved(join(both.folder, 'resume-points-v22.json'), 'a FIFO'),
    );
    // An older version's cache file goes; what stands at such a name that rxstore cannot have made stays.
    const older = await cacheFolder();
    await writeFile(join(older.folder, 'summaries-v3.json'), '{"version":3,"entries":{}}');
    execFileSync('mkfifo', [join(older.folder, 'summaries-v20.json')]);
    await symlink(elsewhere, join(older.folder, 'resume-points-v1.json'));
    expect((await lsWithCacheHome(machine, older.cacheHome)).code).toBe(0);
    expect((await readdir(older.folder)).sort()).toEqual([
      'resume-points-v1.json',
      'resume-points-v22.json',
      'summaries-v20.json',
      'summaries-v22.json',
    ]);
  });

  it('junk entries planted in a cache file are dropped and the file rewritten without them; one past the bound is no cache', async () => {
    const { MAX_CACHE_FILE_BYTES } = await import('../../src/store/listing/cache-file.js');
    const machine = await buildStateRoot();
    const cacheHome = await tempDir('rxstore-cache-');
    const file = join(cacheHome, 'rxstore', 'summaries-v22.json');
    const first = await lsWithCacheHome(machine, cacheHome);
    expect(first.code, first.stderr).toBe(0);
    const written = JSON.parse(await readFile(file, 'utf8')) as { version: number; entries: Record<string, unknown> };
    const real = Object.keys(written.entries).sort();
    expect(real.length).toBeGreaterThan(0);
    // Cheap to plant, dear to keep: each costs a listing its parse and its rewrite, every run.
    const junk = Object.fromEntries(Array.from({ length: 50_000 }, (_, at) => [`/junk/${at}`, [[[0]]]]));
    await writeFile(file, JSON.stringify({ version: written.version, entries: { ...junk, ...written.entries } }));
    const again = await lsWithCacheHome(machine, cacheHome);
    expect(again.code, again.stderr).toBe(0);
    expect(new Set(checked(JSON.parse(again.stdout) as ListedSession[]))).toEqual(new Set(['cache']));
    expect(Object.keys((JSON.parse(await readFile(file, 'utf8')) as typeof written).entries).sort()).toEqual(real);
    // Sparse: past the bound the file is not read at all, and the listing reads every session itself.
    await truncate(file, MAX_CACHE_FILE_BYTES + 1);
    const past = await lsWithCacheHome(machine, cacheHome);
    expect(past.code, past.stderr).toBe(0);
    expect(new Set(checked(JSON.parse(past.stdout) as ListedSession[]))).toEqual(new Set(['now']));
  });

  it('a file or a link to nothing in the way of the cache folder is named, left, and said once; the library throws RX_NOT_REGULAR_FILE', async () => {
    const { CacheFile } = await import('../../src/store/listing/cache-file.js');
    const machine = await buildStateRoot();
    const notAFolder = join(await tempDir('rxstore-cache-'), 'a-file');
    await writeFile(notAFolder, 'x');
    const run = await lsWithCacheHome(machine, notAFolder);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).not.toEqual([]);
    // Above the folder: the file in the way is named, not the folder that could not be made below it.
    expect(run.stderr).toBe(
      `rxstore: warning: RX_NOT_REGULAR_FILE: ${notAFolder} is a file, not a folder the cache can be kept in; it is left as it is; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
    );
    expect(await readFile(notAFolder, 'utf8')).toBe('x');
    const home = await tempDir('rxstore-cache-');
    await writeFile(join(home, 'rxstore'), 'mine');
    const atFolder = await lsWithCacheHome(machine, home);
    expect(atFolder.code).toBe(0);
    expect(atFolder.stderr).toBe(
      `rxstore: warning: RX_NOT_REGULAR_FILE: ${join(home, 'rxstore')} is a file, not a folder the cache can be kept in; it is left as it is; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
    );
    expect(await readFile(join(home, 'rxstore'), 'utf8')).toBe('mine');
    const dangling = join(await tempDir('rxstore-cache-'), 'gone');
    await symlink(join(dangling, '..', 'nowhere'), dangling);
    const toNothing = await lsWithCacheHome(machine, dangling);
    expect(toNothing.stderr).toBe(
      `rxstore: warning: RX_NOT_REGULAR_FILE: ${dangling} is a symbolic link to nothing, not a folder the cache can be kept in; it is left as it is; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
    );
    expect((await lstat(dangling)).isSymbolicLink()).toBe(true);
    // A loop of links as the cache home: named once for both files, not the files' own errors through it.
    const loops = await tempDir('rxstore-cache-');
    await symlink(join(loops, 'b'), join(loops, 'a'));
    await symlink(join(loops, 'a'), join(loops, 'b'));
    const looped = await lsWithCacheHome(machine, join(loops, 'a'));
    expect(looped.code).toBe(0);
    expect(looped.stderr).toBe(
      `rxstore: warning: RX_NOT_REGULAR_FILE: ${join(loops, 'a')} is a loop of symbolic links, not a folder the cache can be kept in; it is left as it is; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
    );
    const { z } = await import('zod');
    const file = new CacheFile(join(notAFolder, 'rxstore', 'summaries-v22.json'), 4, z.unknown());
    file.set('a', 1);
    await expect(file.save()).rejects.toMatchObject({ code: 'RX_NOT_REGULAR_FILE', data: { file: notAFolder } });
  });

  it.skipIf(process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status !== 0)(
    'a cache folder that may not be written is named once, for both files, and the listing still answers',
    async () => {
      const root = await tempDir('rxstore-cache-ro-');
      await cp(fixture('tool-calls').root, join(root, 'state'), { recursive: true });
      const folder = join(root, 'cache', 'rxstore');
      await mkdir(folder, { recursive: true });
      spawnSync('chmod', ['-R', 'a+rX,go-w', root]);
      await chmod(folder, 0o555);
      const asRoot = process.getuid?.() === 0;
      // As `nobody` when the tests run as root, who may write any folder.
      const run = spawnSync(
        asRoot ? 'setpriv' : process.execPath,
        [
          ...(asRoot ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : []),
          rxstoreBin,
          'ls',
          '--state-home',
          join(root, 'state'),
          '--json',
        ],
        { encoding: 'utf8', cwd: '/', env: { ...process.env, XDG_CACHE_HOME: join(root, 'cache') } },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).not.toEqual([]);
      expect(run.stderr).toBe(
        `rxstore: warning: RX_FILE_SYSTEM: ${folder}: permission denied; the summary cache was not saved whole: the next ls reads again the logs it lacks\n`,
      );
    },
  );

  it('a relative XDG_CACHE_HOME is ignored, as the XDG spec says', async () => {
    const { homedir } = await import('node:os');
    const { defaultCacheDir } = await import('../../src/store/listing/cache-dir.js');
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'relcache' }, 'linux')).toBe(join(homedir(), '.cache', 'rxstore'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/abs/cache' }, 'linux')).toBe(join('/abs/cache', 'rxstore'));
  });
});
