// A migration or a salvage killed while it built its session (`kill -9`) left the hidden staging folder in the
// store for good, one more each kill. The next session created in that store takes it away: a staging folder
// whose lock (a file beside it) can be taken is one whose writer is gone (the system drops a `flock` when its
// holder dies). Never one whose lock is held, never anything but rxstore's own folders of that name, never
// through a link; and the session published holds no file of the staging.
import { mkdir, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStagingFolder, removeAbandonedStagingFolders } from '../../../src/fs/staging-folders.js';
import { workspaceSlug } from '../../../src/store/roots/workspace-slug.js';
import { holdLock } from '../../support/children/hold-lock.js';
import { rxstoreBin, runNodeChild } from '../../support/cli-child.js';
import { killAtFailPoint } from '../../support/faults/fail-points.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/** A state root whose workspace has a JSONL transcript of each name, and the store they migrate into. */
async function workspaceWithTranscripts(names: string[]) {
  const base = await realpath(await tempDir('rxstore-staging-'));
  const [stateRoot, workspace] = [join(base, 'state'), join(base, 'ws')];
  const slug = join(stateRoot, 'projects', workspaceSlug(workspace, 'linux'));
  await mkdir(workspace, { recursive: true });
  await mkdir(join(slug, 'sessions'), { recursive: true });
  const transcripts: string[] = [];
  for (const [index, name] of names.entries()) {
    const lines = [
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: `question ${index}` },
      { role: 'assistant', content: `answer ${index}` },
    ];
    transcripts.push(join(slug, 'sessions', `${name}.jsonl`));
    await writeFile(transcripts.at(-1)!, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  }
  return { stateRoot, workspace, transcripts, store: join(slug, 'sessions-v4') };
}

const migrateArgv = (stateRoot: string, workspace: string, transcript: string) => [
  rxstoreBin,
  'migrate',
  'jsonl-to-v4',
  transcript,
  '--state-home',
  stateRoot,
  '--cwd',
  workspace,
];

/** What in the store has a staging name, folder or lock file (or is named so, as a link or a file). */
const stagingNames = async (store: string) =>
  (await readdir(store)).filter((name) => name.startsWith('.tmp-rxstore-')).sort();

const sessionsIn = async (store: string) =>
  (await readdir(store, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name);

describe('the staging folder of a killed migration', () => {
  it('is taken away, with its lock file, by the next migrate into the store; one in use and what is not one stay', async () => {
    const { stateRoot, workspace, transcripts, store } = await workspaceWithTranscripts(['first', 'second']);
    const [first, second] = transcripts as [string, string];
    await killAtFailPoint(migrateArgv(stateRoot, workspace, first), { name: 'create.log-synced', hit: 1 });
    const [killed, killedLock] = await stagingNames(store);
    expect(killedLock).toBe(`${killed}.lock`);
    expect((await readdir(join(store, killed!))).sort()).toEqual(['events.frames', 'legacy', 'manifest.json']);

    // A staging folder whose writer lives (its lock held by another process), a link of a staging name to a
    // folder elsewhere (with a lock file no one holds), a file of a staging name, a folder of another name.
    const live = '.tmp-rxstore-0000000000aa';
    await mkdir(join(store, live));
    await writeFile(join(store, live, 'manifest.json'), '{}');
    const writer = await holdLock('os', join(store, `${live}.lock`));
    const elsewhere = await tempDir('rxstore-staging-link-');
    await writeFile(join(elsewhere, 'keep.txt'), 'keep');
    await symlink(elsewhere, join(store, '.tmp-rxstore-0000000000bb'));
    await writeFile(join(store, '.tmp-rxstore-0000000000bb.lock'), '');
    await writeFile(join(store, '.tmp-rxstore-0000000000cc'), 'a file of a staging name');
    await mkdir(join(store, '.tmp-rxstore-notes'));
    const kept = [
      live,
      `${live}.lock`,
      '.tmp-rxstore-0000000000bb',
      '.tmp-rxstore-0000000000bb.lock',
      '.tmp-rxstore-0000000000cc',
      '.tmp-rxstore-notes',
    ];
    try {
      const run = await runNodeChild(migrateArgv(stateRoot, workspace, second));
      expect(run.code, run.stdout).toBe(0);
      expect(await stagingNames(store)).toEqual(kept);
      expect(await readdir(join(store, live))).toEqual(['manifest.json']);
      expect(await readdir(elsewhere)).toEqual(['keep.txt']);
    } finally {
      await writer.release();
    }

    // Its writer gone, the live one's folder goes with the next write too; the killed migration is done again.
    const again = await runNodeChild(migrateArgv(stateRoot, workspace, first));
    expect(again.code, again.stdout).toBe(0);
    expect(await stagingNames(store)).toEqual(kept.slice(2));
    // The sessions published hold nothing of their staging.
    const sessions = await sessionsIn(store);
    expect(sessions).toHaveLength(2);
    for (const id of sessions)
      expect((await readdir(join(store, id))).sort()).toEqual(['events.frames', 'legacy', 'manifest.json']);
  }, 60_000);

  afterEach(() => {
    vi.useRealTimers();
  });

  it('left by an older rxstore, with no lock file: taken away only once nothing in it has changed for a minute', async () => {
    const store = await tempDir('rxstore-staging-old-');
    const old = '.tmp-rxstore-0000000000dd';
    await mkdir(join(store, old, 'legacy'), { recursive: true });
    await writeFile(join(store, old, 'events.frames'), '');
    // One being built, whose lock this process holds, stays however old it is.
    const building = await makeStagingFolder(store);
    try {
      await removeAbandonedStagingFolders(store);
      expect(await stagingNames(store)).toHaveLength(3);
      // A minute on (the clock moved, not waited for), the older rxstore's goes and the one being built stays.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 61_000);
      await removeAbandonedStagingFolders(store);
      const name = building.path.slice(store.length + 1);
      expect(await stagingNames(store)).toEqual([name, `${name}.lock`]);
    } finally {
      await building.release();
    }
    // Released, it leaves no lock file; its folder is the writer's to publish or remove.
    expect(await stagingNames(store)).toEqual([building.path.slice(store.length + 1)]);
  });
});

describe.skipIf(!reasonixBinary())(reasonixTitle('a store that holds a staging folder being built'), () => {
  it("is one Reasonix resumes a session of, the staging folder's lock file beside it", async () => {
    const { stateRoot, workspace, transcripts, store } = await workspaceWithTranscripts(['talk']);
    const run = await runNodeChild(migrateArgv(stateRoot, workspace, transcripts[0]!));
    expect(run.code, run.stdout).toBe(0);
    const building = await makeStagingFolder(store);
    const mock = await startMockModel([{ text: 'Going on.' }]);
    try {
      const resumed = await runReasonix({
        home: stateRoot,
        cwd: workspace,
        args: ['run', '--resume', 'talk', 'And now?'],
        mock,
      });
      expect(
        resumed.stderr.split('\n').filter((line) => line.startsWith('error: ')),
        resumed.stderr,
      ).toEqual([]);
      expect(resumed.code).toBe(0);
      expect(JSON.stringify(mock.chatRequests().at(-1)?.messages)).toContain('answer 0');
    } finally {
      await mock.close();
      await building.release();
    }
  }, 60_000);
});
