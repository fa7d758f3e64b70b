import { cp, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../src/session/reading/read-session.js';
import { repairSession } from '../src/session/writing/repair-session.js';
import { boltDamage } from '../src/session/reading/bolt-damage.js';
import { endFrames, logOf } from './support/faults.js';
import { fixture } from './support/fixtures.js';
import { startMockModel } from './support/mock-model.js';
import { layForResume, reasonixAbsentMessage, reasonixBinary, runReasonix } from './support/reasonix.js';

/**
 * Reasonix 1.38.11 keeps a recovery cache of each session it opens (`.recovery-cache/<id>/`), trusted while
 * the storage identity matches the log. A log that holds less than the cache — cut at a batch boundary, or
 * an older copy of the session put back — is refused when Reasonix resumes it ("session operation id
 * conflicts with an earlier batch"); without the cache, or with a new identity, it opens. rxstore says what
 * Reasonix does, and `repairSession` clears such a cache so that the session opens.
 */
const source = fixture('plain-chat');

async function resume(home: string, id: string): Promise<{ opens: boolean; said: string }> {
  const mock = await startMockModel([{ text: 'Resumed.' }]);
  try {
    const run = await runReasonix({ home, cwd: source.workspace, args: ['run', '--resume', id, 'say ok'], mock, permissionMode: 'danger-full-access' });
    return { opens: run.code === 0, said: `${run.stdout}\n${run.stderr}` };
  } finally {
    await mock.close();
  }
}

/** A session Reasonix has resumed once (so it has a recovery cache), in a scratch state root of its own. */
async function resumedOnce() {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-recovery-'));
  const dir = await layForResume(source.dir, home, source.workspace);
  expect((await resume(home, basename(dir))).opens).toBe(true);
  return { home, dir, id: basename(dir), cache: join(dirname(dir), '.recovery-cache', basename(dir)) };
}

/** Reasonix's verdict, judged on a copy of the state root: a resume changes the log and the cache. */
async function resumeCopy(session: Awaited<ReturnType<typeof resumedOnce>>) {
  const judged = await mkdtemp(join(tmpdir(), 'rxstore-recovery-judged-'));
  try {
    await cp(session.home, judged, { recursive: true });
    return await resume(judged, session.id);
  } finally {
    await rm(judged, { recursive: true, force: true });
  }
}

const cutWholeBatches = async (dir: string, batches: number) => {
  const ends = await endFrames(dir);
  const kept = ends.at(-1 - batches)!;
  await truncate(logOf(dir), kept.offset + kept.bytes);
};

const cases: [string, (session: Awaited<ReturnType<typeof resumedOnce>>) => Promise<void>, boolean][] = [
  ['unchanged', async () => {}, true],
  ['the last batch cut off', ({ dir }) => cutWholeBatches(dir, 1), false],
  ['three batches cut off', ({ dir }) => cutWholeBatches(dir, 3), false],
  ['the last batch cut in the middle (a torn tail the cache knows)', async ({ dir }) => {
    const last = (await endFrames(dir)).at(-1)!;
    await truncate(logOf(dir), last.offset + last.bytes - 10);
  }, false],
  // Reasonix's refused run writes recent-v1.json again from the log: its checkpoint still holds the turn's end.
  ['the last batch cut off, and a resume already refused', async ({ dir, home, id }) => {
    await cutWholeBatches(dir, 1);
    expect((await resume(home, id)).opens).toBe(false);
  }, false],
  ['an older copy of the session put back', async ({ dir }) => {
    await rm(dir, { recursive: true });
    await cp(source.dir, dir, { recursive: true });
  }, false],
  ['the last batch cut off, the storage identity removed', async ({ dir }) => {
    await cutWholeBatches(dir, 1);
    await rm(join(dir, 'storage.identity.json'));
  }, true],
  ['the last batch cut off, the recovery cache removed', async ({ dir, cache }) => {
    await cutWholeBatches(dir, 1);
    await rm(cache, { recursive: true });
  }, true],
];

describe.skipIf(!reasonixBinary())(`a recovery cache that holds more than the log, judged by Reasonix 1.38.11 ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`, () => {
  it.concurrent.each(cases)('%s', async (_, change, opens) => {
    const session = await resumedOnce();
    try {
      await change(session);
      const read = await readSession(session.dir);
      const reasonix = await resumeCopy(session);
      expect(reasonix.opens, reasonix.said).toBe(opens);
      if (opens) expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
      else {
        expect(reasonix.said).toContain('session operation id conflicts with an earlier batch');
        expect(read.refusal).toMatchObject({ code: 'RX_RECOVERY_CACHE_AHEAD', data: { file: session.cache } });
        // The repair clears the cache (and cuts a torn tail, nothing else); Reasonix then resumes the session.
        const torn = read.tornTail !== null;
        const log = await readFile(logOf(session.dir));
        expect(await repairSession(session.dir)).toMatchObject({ action: 'repaired', tornTail: torn ? read.tornTail : null });
        expect(await readFile(logOf(session.dir))).toEqual(log.subarray(0, read.durableEnd));
        expect((await readSession(session.dir)).status).toBe('ok');
        expect((await resume(session.home, session.id)).opens).toBe(true);
      }
    } finally {
      await rm(session.home, { recursive: true, force: true });
    }
  });
});

/** The pages of the checkpoint bbolt reaches when it opens it, and those it does not: each page zeroed in turn. */
function pagesOf(bolt: Buffer, pageSize = 4096) {
  const reached: number[] = [];
  const unreached: number[] = [];
  for (let page = 2; page < bolt.length / pageSize; page += 1) {
    const zeroed = Buffer.from(bolt).fill(0, page * pageSize, (page + 1) * pageSize);
    (boltDamage(zeroed) ? reached : unreached).push(page);
  }
  return { reached, unreached };
}

const zeroPage = (bolt: Buffer, page: number, pageSize = 4096) => Buffer.from(bolt).fill(0, page * pageSize, (page + 1) * pageSize);

const damagedCheckpoints: [string, (bolt: Buffer) => Buffer, boolean][] = [
  ['a page the database reaches zeroed', (bolt) => zeroPage(bolt, pagesOf(bolt).reached.at(-1)!), false],
  ['the file cut after its two meta pages', (bolt) => bolt.subarray(0, 8192), false],
  ['a freed page zeroed (no longer reached)', (bolt) => zeroPage(bolt, pagesOf(bolt).unreached.at(-1)!), true],
  ['the newer meta page zeroed (bbolt takes the older)', (bolt) => zeroPage(bolt, 0), true],
  ['both meta pages zeroed (no database: Reasonix makes a new one)', (bolt) => Buffer.from(bolt).fill(0, 0, 8192), true],
  ['an empty file', () => Buffer.alloc(0), true],
];

describe.skipIf(!reasonixBinary())(`a damaged recovery checkpoint, judged by Reasonix 1.38.11 ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`, () => {
  it.concurrent.each(damagedCheckpoints)('%s', async (_, damage, opens) => {
    const session = await resumedOnce();
    try {
      const checkpoint = join(session.cache, 'recovery-v1.bolt');
      const bolt = await readFile(checkpoint);
      expect(boltDamage(bolt)).toBeUndefined();
      await writeFile(checkpoint, damage(bolt));
      const read = await readSession(session.dir);
      const reasonix = await resumeCopy(session);
      expect(reasonix.opens, reasonix.said).toBe(opens);
      if (opens) expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
      else {
        // Reasonix crashes: a bbolt assertion, or a fault reading past the file.
        expect(reasonix.said).toMatch(/panic: assertion failed: Page expected to be|fatal error: fault/);
        expect(read.refusal).toMatchObject({ code: 'RX_RECOVERY_CACHE_DAMAGED', data: { file: checkpoint } });
        // The repair clears the cache and leaves the log as it is; Reasonix then resumes the session.
        const log = await readFile(logOf(session.dir));
        expect(await repairSession(session.dir)).toMatchObject({ action: 'repaired', tornTail: null, staleCache: true });
        expect(await readFile(logOf(session.dir))).toEqual(log);
        expect((await readSession(session.dir)).status).toBe('ok');
        expect((await resume(session.home, session.id)).opens).toBe(true);
      }
    } finally {
      await rm(session.home, { recursive: true, force: true });
    }
  });
});
