// Reasonix takes a lease on a JSONL transcript (`<id>.jsonl.lease.lock`, flock) before it migrates it, and
// refuses a transcript whose lease another holds. A migration by rxstore takes the same lease from the freeze
// to the publish: a `reasonix --resume` of the transcript in the meantime is refused cleanly, where it used to
// publish the same session at the same moment and fail ("rename … file exists"), the turn typed lost; and a
// transcript whose lease another holds is refused, the others migrated.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { holdLock } from '../support/children/hold-lock.js';
import { runCliChild, type ChildResult } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

/** A state root whose workspace has a JSONL transcript of each name, and the store they migrate into. */
async function workspaceWithTranscripts(names: string[]) {
  const base = await realpath(await tempDir('rxstore-lease-'));
  const [stateRoot, workspace] = [join(base, 'state'), join(base, 'ws')];
  const slug = join(stateRoot, 'projects', workspaceSlug(workspace, 'linux'));
  const sessions = join(slug, 'sessions');
  await mkdir(workspace, { recursive: true });
  await mkdir(sessions, { recursive: true });
  const transcripts = names.map((name) => join(sessions, `${name}.jsonl`));
  for (const [index, transcript] of transcripts.entries()) {
    const lines = [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: `question ${index}` },
      { role: 'assistant', content: `answer ${index}` },
    ];
    await writeFile(transcript, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  }
  return { stateRoot, workspace, sessions, transcripts, store: join(slug, 'sessions-v4') };
}

const migrate = (stateRoot: string, workspace: string, ...what: string[]) =>
  runCliChild(['migrate', 'jsonl-to-v4', ...what, '--state-home', stateRoot, '--cwd', workspace]);

const sessionsIn = async (store: string) =>
  (await readdir(store, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name);

const mappedSources = async (store: string) =>
  (
    JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8')) as { entries: { sourcePath: string }[] }
  ).entries
    .map((entry) => entry.sourcePath)
    .sort();

describe('a transcript whose lease is a symbolic link', () => {
  it('is refused, nothing made where the link points and the link left as it was, dangling or not', async () => {
    const { stateRoot, workspace, sessions, transcripts, store } = await workspaceWithTranscripts(['linked']);
    const lease = join(sessions, 'linked.jsonl.lease.lock');
    for (const target of [join(sessions, '..', 'nowhere'), join(sessions, '..', 'someones-file')]) {
      if (target.endsWith('someones-file')) await writeFile(target, 'keep\n');
      await symlink(target, lease);
      const run = await migrate(stateRoot, workspace, transcripts[0]!);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`${lease} is a symbolic link, so it cannot be a lock file (RX_NOT_REGULAR_FILE)`);
      expect(await sessionsIn(store)).toEqual([]);
      expect(await readlink(lease)).toBe(target);
      if (target.endsWith('nowhere')) expect(existsSync(target)).toBe(false);
      else expect(await readFile(target, 'utf8')).toBe('keep\n');
      await rm(lease);
    }
  });
});

describe("a transcript whose lease (Reasonix's lock beside it) another process holds", () => {
  it('is refused with one coded line naming it, the others are migrated, and it is once the lease is let go', async () => {
    const { stateRoot, workspace, sessions, transcripts, store } = await workspaceWithTranscripts(['held', 'free']);
    const [held, free] = transcripts as [string, string];
    const lease = join(sessions, 'held.jsonl.lease.lock');
    const holder = await holdLock('os', lease);
    let run: ChildResult;
    try {
      run = await migrate(stateRoot, workspace, '--all');
    } finally {
      await holder.release();
    }
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines.filter((line) => line.includes(' failed '))).toEqual([expect.stringMatching(/^\[[12]\/2\] failed /)]);
    expect(lines.find((line) => line.includes(' failed '))!.replace(/^\[\d\/2\] /, '')).toBe(
      `failed ${held}: in use by a running Reasonix or rxstore (its lease, held.jsonl.lease.lock, stayed locked): nothing was migrated; try again once it is done (RX_WRITER_OWNED)`,
    );
    expect(lines.at(-1)).toBe('2 transcripts: 1 migrated, 0 would be migrated, 0 already migrated, 1 failed');
    // Nothing of the held one: one session, made from the other, and the map names only that one.
    expect(await sessionsIn(store)).toHaveLength(1);
    expect(await mappedSources(store)).toEqual([free]);
    // The lease was another's: rxstore leaves its file where it is.
    expect(existsSync(lease)).toBe(true);

    const again = await migrate(stateRoot, workspace, '--all');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout.trim().split('\n').at(-1)).toBe(
      '1 transcript: 1 migrated, 0 would be migrated, 0 already migrated, 0 failed',
    );
    expect(await sessionsIn(store)).toHaveLength(2);
    expect(await mappedSources(store)).toEqual([free, held].sort());
    // Its own lease rxstore removes as it lets it go, as Reasonix does: the transcripts' folder is as it was.
    expect((await readdir(sessions)).sort()).toEqual(['free.jsonl', 'held.jsonl']);
  }, 60_000);
});

/** Resolves once `ready` says so, polled; rejects if `run` ends first (the migration did not wait where it should). */
async function until(ready: () => Promise<boolean>, run: Promise<ChildResult>): Promise<void> {
  let ended: ChildResult | undefined;
  void run.then((result) => (ended = result));
  while (!(await ready())) {
    if (ended) throw new Error(`the migration ended first: ${ended.stdout}${ended.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!reasonixBinary())(reasonixTitle('a transcript rxstore is migrating'), () => {
  it('is refused by `reasonix --resume` until the session is published, which Reasonix then resumes', async () => {
    const { stateRoot, workspace, transcripts, store } = await workspaceWithTranscripts(['talk']);
    const mock = await startMockModel([{ text: 'Going on.' }]);
    const resume = () =>
      runReasonix({ home: stateRoot, cwd: workspace, args: ['run', '--resume', 'talk', 'And now?'], mock });
    try {
      // rxstore's lock on the store, held by another process, stops the migration just before it publishes:
      // frozen and staged, its lease held.
      await mkdir(store, { recursive: true });
      const storeLock = await holdLock('store', store);
      const migrating = migrate(stateRoot, workspace, transcripts[0]!);
      try {
        await until(
          async () => (await readdir(store)).some((name) => /^\.tmp-rxstore-[0-9a-f]{12}$/.test(name)),
          migrating,
        );
        const refused = await resume();
        expect(refused.stderr).toContain('error: this session is in use by another Reasonix window or process');
        expect(refused.code).toBe(1);
        expect(await sessionsIn(store)).toEqual([]);
      } finally {
        await storeLock.release();
      }
      const migrated = await migrating;
      expect(migrated.code, migrated.stdout).toBe(0);
      const id = /^\[1\/1\] migrated \S+: ([0-9a-f]{24}) -> /.exec(migrated.stdout)![1]!;
      // Asked again, Reasonix resumes the session rxstore published: the same one, and the turn is taken.
      const resumed = await resume();
      expect(
        resumed.stderr.split('\n').filter((line) => line.startsWith('error: ')),
        resumed.stderr,
      ).toEqual([]);
      expect(resumed.code).toBe(0);
      expect(await sessionsIn(store)).toEqual([id]);
      // The model was sent the conversation migrated, then the turn typed.
      const sent = JSON.stringify(mock.chatRequests().at(-1)?.messages);
      expect(sent).toContain('answer 0');
      expect(sent).toContain('And now?');
    } finally {
      await mock.close();
    }
  }, 90_000);
});
