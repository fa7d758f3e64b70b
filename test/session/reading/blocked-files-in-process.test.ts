// The files Reasonix must use to open a session, standing there as something else, read in process: rxstore's
// verdict on each is the one Reasonix 1.38.11 gave in test/reasonix/reads/blocked-files-match-reasonix, and its message says
// which file and why. No Reasonix run, so the mutation run can judge the session reader by it.
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { openSession } from '../../../src/store/open-session.js';
import { blockedFileCases, source } from '../../support/reasonix/blocked-files.js';
import { drain } from '../../support/drain.js';
import { copySession } from '../../support/faults/faults.js';

describe('files Reasonix must use to open a session, in process', () => {
  it.each(blockedFileCases)('%s', async (name, make, blocked) => {
    const dir = await copySession(source.dir);
    await make(dir);
    const read = await readSession(dir);
    if (blocked === undefined) {
      expect(read.status).toBe('ok');
      expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
      return;
    }
    expect(read.refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: join(dir, blocked) } });
    // The case's name (before ` — `) is the message's start: `writer.lock is a directory: Reasonix cannot take its writer lock, …`.
    expect(read.refusal!.message.startsWith(`${name.split(' — ')[0]}: Reasonix cannot `)).toBe(true);
    expect(read.refusal!.message).toMatch(
      /, and refuses to open the session \(moved aside, it is made again when Reasonix opens the session\)$/,
    );
    // Named once: not again as a stale cache or identity, which Reasonix would rebuild if it could.
    expect(read.problems.filter((problem) => problem.data.file === join(dir, blocked))).toHaveLength(1);
  });

  it.each(blockedFileCases.filter(([, , blocked]) => blocked !== undefined))(
    '%s: every stream of batches throws the refusal `read()` reports, before any batch',
    async (_name, make) => {
      const dir = await copySession(source.dir);
      await make(dir);
      const session = await openSession(dir);
      if (session.format !== 'v4') throw new Error('a sessions-v4 copy');
      const refusal = (await session.read()).refusal!;
      expect(refusal.code).toBe('RX_BLOCKED_FILE');
      for (const stream of [session.events(), session.batchesSince(), session.recordsSince()]) {
        expect(await drain<unknown>(stream)).toEqual({ items: [], error: refusal });
      }
      await expect(session.readSince()).rejects.toEqual(refusal);
    },
  );

  it("Reasonix's query cache file as a FIFO: refused until a repair clears the cache, naming the file", async () => {
    const dir = await copySession(source.dir);
    const catalog = join(dirname(dir), '.query-cache', basename(dir), 'catalog-metadata.json');
    await mkdir(dirname(catalog), { recursive: true });
    execFileSync('mkfifo', [catalog]);
    const read = await readSession(dir);
    expect(read.refusal).toMatchObject({ code: 'RX_QUERY_CACHE_BLOCKED', data: { file: catalog } });
    expect(read.refusal!.message).toMatch(
      /^Reasonix's query cache file catalog-metadata\.json is a FIFO, socket or endless device: Reasonix waits forever reading it when it opens the session/,
    );
  });

  it("the store's ownership lock as a directory", async () => {
    const dir = await copySession(source.dir);
    const lock = join(dirname(dir), `.${basename(dir)}.ownership.lock`);
    await mkdir(lock);
    const read = await readSession(dir);
    expect(read.refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: lock } });
    expect(read.refusal!.message).toBe(
      `${basename(lock)} is a directory: Reasonix cannot take its ownership lock, and refuses to open the session (moved aside, it is made again when Reasonix opens the session)`,
    );
  });
});
