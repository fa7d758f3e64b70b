import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../src/migrate/jsonl-to-v4.js';
import { readSessionEvents } from '../src/session/read-events.js';
import { readSession } from '../src/session/read-session.js';
import { fixture } from './support/fixtures.js';
import { startMockModel } from './support/mock-model.js';
import { listSessionDirs, reasonixAbsentMessage, reasonixBinary, runReasonix } from './support/reasonix.js';
import { tempDir } from './support/temp-dir.js';

const migrated = fixture('jsonl-migrated');
const fixtureStore = join(migrated.dir, '..');
const jsonlDir = join(fixtureStore, '..', 'sessions');

afterAll(async () => {
  await rm(migrated.stateRoot, { recursive: true, force: true });
});

async function batchesOf(dir: string) {
  const batches = [];
  for await (const item of readSessionEvents(dir)) if (item.type === 'batch') batches.push(item.value);
  return batches;
}

describe('rxstore migrate jsonl-to-v4 reproduces Reasonix 1.38.11', () => {
  it("gives the transcript Reasonix migrated the same id, messages, commits, legacy bytes and map entry", async () => {
    // The target id hashes the transcript's absolute path, so it is laid where Reasonix found it.
    const stateRoot = await lay(migrated.stateRoot);
    const transcript = join(stateRoot, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated', 'sessions', 'legacy-demo.jsonl');
    const report = await migrateJsonlToV4(transcript);
    expect(report).toMatchObject({ action: 'migrated', targetId: migrated.id, messages: 5, batches: 1 });

    const ours = await batchesOf(report.targetDir);
    const theirs = (await batchesOf(migrated.dir)).filter((batch) => batch.batch.operationId.startsWith('legacy-import:'));
    expect(ours.map((batch) => [batch.batch.operationId, batch.batch.operationHash, batch.batch.writerGeneration])).toEqual(
      theirs.map((batch) => [batch.batch.operationId, batch.batch.operationHash, batch.batch.writerGeneration]),
    );
    expect(ours.map((batch) => batch.payloads)).toEqual(theirs.map((batch) => batch.payloads));
    const [mine, reasonix] = await Promise.all([readSession(report.targetDir), readSession(migrated.dir)]);
    expect(mine.projection.transcript.map((entry) => entry.message)).toEqual(
      reasonix.projection.transcript.slice(0, 5).map((entry) => entry.message),
    );
    for (const name of ['legacy-demo.jsonl', 'legacy-demo.jsonl.meta']) {
      expect(await readFile(join(report.targetDir, 'legacy', name))).toEqual(await readFile(join(migrated.dir, 'legacy', name)));
    }
    const manifest = JSON.parse(await readFile(join(report.targetDir, 'manifest.json'), 'utf8'));
    const theirManifest = JSON.parse(await readFile(join(migrated.dir, 'manifest.json'), 'utf8'));
    expect(manifest.source).toEqual(theirManifest.source);
    const map = JSON.parse(await readFile(join(report.targetDir, '..', 'migration-map.json'), 'utf8'));
    const theirMap = JSON.parse(await readFile(join(fixtureStore, 'migration-map.json'), 'utf8'));
    const withoutTime = ({ createdAt: _, ...entry }: Record<string, unknown>) => entry;
    expect(map.entries.map(withoutTime)).toEqual(theirMap.entries.map(withoutTime));

    const again = await migrateJsonlToV4(transcript);
    expect(again.action).toBe('exists');
  });

  it.skipIf(!reasonixBinary())(`is resumed by Reasonix from the transcript's workspace without a second migration ${reasonixBinary() ? '' : reasonixAbsentMessage()}`, async () => {
    // Reasonix looks the migrated copy up from wherever the state root is: a folder of this test's own.
    const stateRoot = await lay(join(await tempDir('rxstore-jsonl-resume-'), 'state'));
    const transcript = join(stateRoot, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated', 'sessions', 'legacy-demo.jsonl');
    const report = await migrateJsonlToV4(transcript);
    const before = await readSession(report.targetDir);
    await mkdir(migrated.workspace, { recursive: true });
    const mock = await startMockModel([{ text: 'Picked up where we left off.' }]);
    try {
      const run = await runReasonix({ home: stateRoot, cwd: migrated.workspace, args: ['run', '--resume', 'legacy-demo', 'Carry on.'], mock });
      expect(run.code, run.stderr).toBe(0);
      const contents = mock.chatRequests()[0]!.messages.map((message) => message.content);
      expect(contents).toContain('There is one file: README.md.');
    } finally {
      await mock.close();
    }
    expect(listSessionDirs(stateRoot)).toEqual([report.targetDir]);
    const after = await readSession(report.targetDir);
    expect(after.status).toBe('ok');
    expect(after.batches).toBeGreaterThan(before.batches);
    expect(after.projection.transcript.at(-1)!.message.content).toBe('Picked up where we left off.');
    const map = JSON.parse(await readFile(join(report.targetDir, '..', 'migration-map.json'), 'utf8'));
    expect(map.entries).toHaveLength(1);
  });
});

/** Copies the fixture's JSONL store to the state-root path Reasonix used, replacing any earlier copy. */
async function lay(stateRoot: string): Promise<string> {
  const target = join(stateRoot, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated');
  await rm(stateRoot, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  await cp(jsonlDir, join(target, 'sessions'), { recursive: true });
  return stateRoot;
}
