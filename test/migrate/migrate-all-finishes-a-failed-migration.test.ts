// A migration that failed is never counted as done: a session published by a run whose
// migration-map write failed is found again by `--all`, which writes the map.
import { copyFile, mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const sessions = join(fixture('jsonl-migrated').root, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated', 'sessions');

describe('migrate jsonl-to-v4 --all after a migration whose map write failed', () => {
  it('finds the transcript again, and the re-run writes migration-map.json', async () => {
    const stateRoot = await tempDir('rxstore-all-map-');
    const dir = join(stateRoot, 'projects', 'ws', 'sessions');
    await mkdir(dir, { recursive: true });
    // The folder given as --cwd: migrate takes only one that exists.
    await mkdir(join(stateRoot, 'ws'));
    const transcript = join(dir, 'legacy-demo.jsonl');
    await copyFile(join(sessions, 'legacy-demo.jsonl'), transcript);
    await copyFile(join(sessions, 'legacy-demo.jsonl.meta'), `${transcript}.meta`);
    const all = [
      'migrate',
      'jsonl-to-v4',
      '--all',
      '--state-home',
      stateRoot,
      '--home',
      stateRoot,
      '--cwd',
      join(stateRoot, 'ws'),
    ];
    const store = join(stateRoot, 'projects', 'ws', 'sessions-v4');

    // The fourth atomic write is the map's, after the session was published: a full disk there.
    const failed = await runCliChild(all, { env: { ...process.env, RXSTORE_FAIL_POINT: 'write.atomic:4:enospc' } });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/failed .*migration-map\.json: no space left on device/);
    expect(await readdir(store)).not.toContain('migration-map.json');

    const dry = await runCliChild([...all, '--dry-run']);
    expect(dry.stdout.trim().split('\n').at(-1)).toMatch(/^1 transcript: /);

    const again = await runCliChild(all);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').at(-1)).toMatch(/^1 transcript: .*0 failed$/);
    const map = JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8')) as {
      entries: { sourcePath: string }[];
    };
    expect(map.entries.map((entry) => entry.sourcePath)).toEqual([transcript]);

    // Now it is done: nothing is left for --all.
    const done = await runCliChild(all);
    expect(done.stdout.trim().split('\n').at(-1)).toMatch(/^0 transcripts: /);
  });
});
