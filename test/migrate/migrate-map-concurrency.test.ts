// The migration map under concurrency: what `migrate jsonl-to-v4 --all` writes in the map is
// read back whole, two runs at once over the same transcripts migrate each of them once, and a
// lock held by another process is waited for or refused with a coded line, with nothing lost.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, realpath, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MigrationMapSchema } from '../../src/migrate/migration-map.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { runCliChild } from '../support/cli-child.js';
import { holdLock } from '../support/children/hold-lock.js';
import { tempDir } from '../support/temp-dir.js';

const WORKSPACES = ['-home-me-alpha', '-home-me-beta'];
const PER_WORKSPACE = 6;

/** A state root with PER_WORKSPACE transcripts in each workspace's JSONL store. */
async function stateRootWithTranscripts() {
  const stateRoot = await realpath(await tempDir('rxstore-map-'));
  // The folder given as --cwd: migrate takes only one that exists.
  await mkdir(join(stateRoot, 'ws'));
  const transcripts: string[] = [];
  for (const slug of WORKSPACES) {
    const dir = join(stateRoot, 'projects', slug, 'sessions');
    await mkdir(dir, { recursive: true });
    for (let index = 0; index < PER_WORKSPACE; index += 1) {
      const lines = [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: `question ${slug} ${index}` },
        { role: 'assistant', content: `answer ${slug} ${index}` },
      ];
      const path = join(dir, `t-${index}.jsonl`);
      await writeFile(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
      transcripts.push(path);
    }
  }
  return { stateRoot, transcripts, stores: WORKSPACES.map((slug) => join(stateRoot, 'projects', slug, 'sessions-v4')) };
}

const migrateAll = (stateRoot: string, ...more: string[]) =>
  runCliChild([
    'migrate',
    'jsonl-to-v4',
    '--all',
    '--state-home',
    stateRoot,
    '--home',
    stateRoot,
    '--cwd',
    join(stateRoot, 'ws'),
    ...more,
  ]);

const sessionsIn = async (store: string) =>
  (await readdir(store, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();

/** The map of a store, through its schema: one entry per transcript, naming a session that is there. */
async function checkMap(store: string, transcripts: string[]) {
  const map = MigrationMapSchema.parse(JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8')));
  const entries = map.entries ?? [];
  expect(entries.map((entry) => entry.sourcePath)).toEqual([...transcripts].sort());
  for (const entry of entries) {
    const bytes = await readFile(entry.sourcePath);
    expect(entry).toMatchObject({
      sourceSize: bytes.length,
      sourceSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      targetCodec: 'reasonix.session.linear/v4',
    });
  }
  expect(entries.map((entry) => entry.targetId).sort()).toEqual(await sessionsIn(store));
  for (const id of await sessionsIn(store)) expect((await readSession(join(store, id))).status).toBe('ok');
  return entries;
}

describe('the migration map', () => {
  it('--all writes an entry per transcript that reads back whole, and a second run finds nothing to do and leaves the map as it was', async () => {
    const { stateRoot, transcripts, stores } = await stateRootWithTranscripts();
    const run = await migrateAll(stateRoot);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toBe(
      `${transcripts.length} transcripts: ${transcripts.length} migrated, 0 would be migrated, 0 already migrated, 0 failed`,
    );
    const maps: Buffer[] = [];
    for (const [index, store] of stores.entries()) {
      await checkMap(
        store,
        transcripts.filter((path) => path.includes(`/${WORKSPACES[index]}/`)),
      );
      maps.push(await readFile(join(store, 'migration-map.json')));
    }

    const again = await migrateAll(stateRoot);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe('0 transcripts: 0 migrated, 0 would be migrated, 0 already migrated, 0 failed');
    for (const [index, store] of stores.entries())
      expect(await readFile(join(store, 'migration-map.json'))).toEqual(maps[index]);
  });

  it('two --all runs at once over the same transcripts migrate each once; both exit 0, the one that comes second to a transcript finds it done', async () => {
    const { stateRoot, transcripts, stores } = await stateRootWithTranscripts();
    const runs = await Promise.all([migrateAll(stateRoot, '--json'), migrateAll(stateRoot, '--json')]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const outcomes = runs.flatMap(
      (run) =>
        JSON.parse(run.stdout) as { source: string; report?: { action: string; targetId: string }; error?: unknown }[],
    );
    expect(outcomes.filter((outcome) => outcome.error)).toEqual([]);
    // Each transcript was migrated by exactly one of the runs; the other, if it came to it, found it done.
    const migrated = outcomes
      .filter((outcome) => outcome.report!.action === 'migrated')
      .map((outcome) => outcome.source);
    expect(migrated.sort()).toEqual([...transcripts].sort());
    expect(
      outcomes
        .filter((outcome) => outcome.report!.action !== 'migrated')
        .every((outcome) => outcome.report!.action === 'exists'),
    ).toBe(true);
    for (const [index, store] of stores.entries()) {
      const mine = transcripts.filter((path) => path.includes(`/${WORKSPACES[index]}/`));
      expect(await sessionsIn(store)).toHaveLength(mine.length);
      await checkMap(store, mine);
    }
  });

  it("held by another process (Reasonix's OS lock on migration-map.json.lock): the run waits, then refuses with a coded line; the session is kept and a later run records it", async () => {
    const { stateRoot, transcripts, stores } = await stateRootWithTranscripts();
    const [transcript, store] = [transcripts[0]!, stores[0]!];
    await mkdir(store, { recursive: true });
    const lockFile = join(store, 'migration-map.json.lock');
    const holder = await holdLock('os', lockFile);
    let run;
    try {
      run = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', stateRoot]);
    } finally {
      await holder.release();
    }
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const [line, summary] = run.stdout.trim().split('\n');
    // Nothing lost: the session was published before the map was reached, and is whole; its line says so.
    const [id] = await sessionsIn(store);
    expect(line).toBe(
      `[1/1] failed ${transcript}: ${lockFile}: migration-map.json stayed locked by another process (a running Reasonix or rxstore) (RX_WRITER_OWNED); the session was published, but migration-map.json does not record it: the same command run again records it (${id} -> ${join(store, id!)}; resume: REASONIX_HOME=${stateRoot} reasonix --resume ${id}, from the folder whose slug is ${basename(dirname(store))})`,
    );
    expect(summary).toBe('1 transcript: 0 migrated, 0 would be migrated, 0 already migrated, 1 failed');
    expect((await readSession(join(store, id!))).status).toBe('ok');
    expect(existsSync(join(store, 'migration-map.json'))).toBe(false);

    const later = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', stateRoot]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain(`] already migrated ${transcript}: ${id} -> ${join(store, id!)}`);
    await checkMap(store, [transcript]);
  });

  it('held by another rxstore (its lock on the store) all along: the run retries, then refuses with a coded line and publishes nothing; a later run migrates', async () => {
    const { stateRoot, transcripts, stores } = await stateRootWithTranscripts();
    const [transcript, store] = [transcripts[0]!, stores[0]!];
    await mkdir(store, { recursive: true });
    const holder = await holdLock('store', store);
    let run;
    try {
      run = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', stateRoot]);
    } finally {
      await holder.release();
    }
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual([
      `[1/1] failed ${transcript}: ${join(store, '.rxstore.lock')}: the store stayed locked by another rxstore publishing into it; try again once it is done (RX_WRITER_OWNED)`,
      '1 transcript: 0 migrated, 0 would be migrated, 0 already migrated, 1 failed',
    ]);
    // Nothing half done: no session, no map.
    expect(await sessionsIn(store)).toEqual([]);
    expect(existsSync(join(store, 'migration-map.json'))).toBe(false);
    const later = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', stateRoot]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toMatch(new RegExp(`^\\[1/1\\] migrated ${transcript}: [0-9a-f]{24} -> `));
    await checkMap(store, [transcript]);
  });
});
