// repairSession in process on torn copies of a session the real Reasonix wrote: the cut bytes kept as
// evidence named as Reasonix names it, the log cut to its durable end, Reasonix's disposable caches of
// that session (and only that session) removed, and the dry run and refusals that change nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WriterOwnedError } from '../../../src/errors/index.js';
import { repairSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { acquireWriterLocks } from '../../../src/session/reading/writer-locks.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { treeDigest } from '../../support/tree-digest.js';

const source = fixture('tool-calls');

/** A torn copy: the last frame cut short by 7 bytes, as a writer killed mid-append leaves it. */
async function tornCopy() {
  const dir = await copySession(source.dir);
  const intact = await readFile(logOf(dir));
  await cutLog(dir, 7);
  const torn = await readSession(dir);
  expect(torn.status).toBe('torn-tail');
  return { dir, intact, torn, log: await readFile(logOf(dir)) };
}

describe('repairSession', () => {
  it('keeps the cut bytes as events.torn-<unix nanoseconds>.tail, cuts the log to its durable end, and removes the caches', async () => {
    const { dir, torn, log } = await tornCopy();
    const store = dirname(dir);
    const id = basename(dir);
    for (const cache of ['.recovery-cache', '.query-cache']) {
      await mkdir(join(store, cache, id), { recursive: true });
      await writeFile(join(store, cache, id, 'checkpoint.json'), '{}');
      await mkdir(join(store, cache, 'another-session'), { recursive: true });
      await writeFile(join(store, cache, 'another-session', 'checkpoint.json'), '{}');
    }
    expect(existsSync(join(dir, 'events.offset-index.json'))).toBe(true);

    const before = BigInt(Date.now());
    const report = await repairSession(dir);
    const after = BigInt(Date.now());

    expect(report).toEqual({
      dir,
      action: 'repaired',
      tornTail: torn.tornTail,
      evidence: expect.any(String),
      durableEnd: torn.durableEnd,
    });
    expect(dirname(report.evidence!)).toBe(dir);
    const nanos = /^events\.torn-(\d+)\.tail$/.exec(basename(report.evidence!))?.[1];
    expect(nanos).toBeDefined();
    const millis = BigInt(nanos!) / 1_000_000n;
    expect(millis >= before && millis <= after).toBe(true);
    // The evidence is exactly the bytes past the durable end; the log is exactly the bytes before it.
    expect(await readFile(report.evidence!)).toEqual(log.subarray(torn.durableEnd));
    expect(await readFile(logOf(dir))).toEqual(log.subarray(0, torn.durableEnd));
    // No staging file of the evidence is left; the offset index (rebuilt from the log) is gone.
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(dir, 'events.offset-index.json'))).toBe(false);
    for (const cache of ['.recovery-cache', '.query-cache']) {
      expect(existsSync(join(store, cache, id))).toBe(false);
      expect(existsSync(join(store, cache, 'another-session', 'checkpoint.json'))).toBe(true);
    }

    const repaired = await readSession(dir);
    expect(repaired.status).toBe('ok');
    expect(repaired.batches).toBe(source.counts.batches - 1);
    expect(repaired.tornEvidence).toEqual([basename(report.evidence!)]);
    // Repaired, there is nothing more to do, and nothing changes.
    const digest = await treeDigest(dir);
    expect(await repairSession(dir)).toEqual({
      dir,
      action: 'nothing-to-repair',
      tornTail: null,
      durableEnd: torn.durableEnd,
    });
    expect(await treeDigest(dir)).toBe(digest);
  });

  it('repairs a session that has no offset index (a cache Reasonix may not have written yet)', async () => {
    const { dir, torn } = await tornCopy();
    await rm(join(dir, 'events.offset-index.json'));
    const report = await repairSession(dir);
    expect(report).toMatchObject({ action: 'repaired', durableEnd: torn.durableEnd });
    expect((await readSession(dir)).status).toBe('ok');
  });

  it('an intact session: nothing to repair, its durable end the whole log', async () => {
    const dir = await copySession(source.dir);
    const digest = await treeDigest(dir);
    const log = await readFile(logOf(dir));
    expect(await repairSession(dir)).toEqual({
      dir,
      action: 'nothing-to-repair',
      tornTail: null,
      durableEnd: log.length,
    });
    expect(await repairSession(dir, { dryRun: true })).toEqual({
      dir,
      action: 'nothing-to-repair',
      tornTail: null,
      durableEnd: log.length,
    });
    expect(await treeDigest(dir)).toBe(digest);
  });

  it('a dry run says what it would cut and changes nothing, even while a writer holds the session; the repair itself is refused then', async () => {
    const { dir, torn } = await tornCopy();
    const digest = await treeDigest(dir);
    const locks = await acquireWriterLocks(dir);
    try {
      expect(await repairSession(dir, { dryRun: true })).toEqual({
        dir,
        action: 'would-repair',
        tornTail: torn.tornTail,
        durableEnd: torn.durableEnd,
      });
      await expect(repairSession(dir)).rejects.toBeInstanceOf(WriterOwnedError);
    } finally {
      await locks.release();
    }
    expect(await treeDigest(dir)).toBe(digest);
    // Released, the repair goes through.
    expect((await repairSession(dir)).action).toBe('repaired');
  });

  it('a whole log behind a cache Reasonix would wait on forever: the caches go (a dry run only says so), the log stays as it is', async () => {
    const dir = await copySession(source.dir);
    const id = basename(dir);
    // Reasonix reads its query cache's catalog when it opens the session: a FIFO there never ends.
    const catalog = join(dirname(dir), '.query-cache', id, 'catalog-metadata.json');
    await mkdir(dirname(catalog), { recursive: true });
    expect(spawnSync('mkfifo', [catalog]).status).toBe(0);
    const refusal = (await readSession(dir)).refusal;
    expect(refusal?.code).toBe('RX_QUERY_CACHE_BLOCKED');
    const log = await readFile(logOf(dir));
    const durableEnd = log.length;
    const cleared = {
      dir,
      tornTail: null,
      durableEnd,
      staleCache: true,
      cacheProblem: refusal!.message,
      cacheCodes: ['RX_QUERY_CACHE_BLOCKED'],
    };
    expect(await repairSession(dir, { dryRun: true })).toEqual({ ...cleared, action: 'would-repair' });
    expect(existsSync(catalog)).toBe(true);
    expect(await repairSession(dir)).toEqual({ ...cleared, action: 'repaired' });
    expect(existsSync(catalog)).toBe(false);
    expect(await readFile(logOf(dir))).toEqual(log);
    expect((await readSession(dir)).status).toBe('ok');
  });
});
