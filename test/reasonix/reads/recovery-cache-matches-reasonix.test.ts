import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { repairSession } from '../../../src/session/writing/repair-session.js';
import { boltDamage } from '../../../src/session/reading/bolt-damage.js';
import { logOf } from '../../support/faults/faults.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import {
  cacheAheadCases,
  damagedCheckpoints,
  resume,
  resumeCopy,
  resumedOnce,
} from '../../support/reasonix/recovery-cache.js';

/**
 * Reasonix 1.38.11 keeps a recovery cache of each session it opens (`.recovery-cache/<id>/`), trusted while
 * the storage identity matches the log. A log that holds less than the cache — cut at a batch boundary, or
 * an older copy of the session put back — is refused when Reasonix resumes it ("session operation id
 * conflicts with an earlier batch"); without the cache, or with a new identity, it opens. rxstore says what
 * Reasonix does, and `repairSession` clears such a cache so that the session opens.
 */
describe.skipIf(!reasonixBinary())(
  reasonixTitle('a recovery cache that holds more than the log, judged by Reasonix 1.38.11'),
  () => {
    it.concurrent.each(cacheAheadCases)('%s', async (_, change, opens) => {
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
          expect(await repairSession(session.dir)).toMatchObject({
            action: 'repaired',
            tornTail: torn ? read.tornTail : null,
          });
          expect(await readFile(logOf(session.dir))).toEqual(log.subarray(0, read.durableEnd));
          expect((await readSession(session.dir)).status).toBe('ok');
          expect((await resume(session.home, session.id)).opens).toBe(true);
        }
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });
  },
);

describe.skipIf(!reasonixBinary())(reasonixTitle('a damaged recovery checkpoint, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(damagedCheckpoints)('%s', async (_, damage, opens) => {
    const session = await resumedOnce();
    try {
      const checkpoint = join(session.cache, 'recovery-v1.bolt');
      const bolt = await readFile(checkpoint);
      expect(boltDamage(bolt)).toBeUndefined();
      const damaged = damage(bolt);
      expect(damaged.equals(bolt)).toBe(false);
      await writeFile(checkpoint, damaged);
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
        expect(await repairSession(session.dir)).toMatchObject({
          action: 'repaired',
          tornTail: null,
          staleCache: true,
        });
        expect(await readFile(logOf(session.dir))).toEqual(log);
        expect((await readSession(session.dir)).status).toBe('ok');
        expect((await resume(session.home, session.id)).opens).toBe(true);
      }
    } finally {
      await rm(session.home, { recursive: true, force: true });
    }
  });
});

/** What stands in the place of the recovery cache's folders, and whether Reasonix opens the session all the same. */
const cacheFolderCases: [string, (session: { dir: string; cache: string }) => Promise<string>, boolean][] = [
  [
    "the store's .recovery-cache a file",
    async ({ cache }) => {
      await rm(dirname(cache), { recursive: true });
      await writeFile(dirname(cache), 'x');
      return dirname(cache);
    },
    false,
  ],
  [
    "the session's recovery cache a file",
    async ({ cache }) => {
      await rm(cache, { recursive: true });
      await writeFile(cache, 'x');
      return cache;
    },
    false,
  ],
  [
    "the store's .recovery-cache a symlink to nothing",
    async ({ cache }) => {
      await rm(dirname(cache), { recursive: true });
      await symlink('/nonexistent-rxstore-recovery-cache', dirname(cache));
      return dirname(cache);
    },
    false,
  ],
  [
    "the store's .recovery-cache a symlink to a folder",
    async ({ cache }) => {
      const elsewhere = await mkdtemp(join(tmpdir(), 'rxstore-cache-elsewhere-'));
      await rm(dirname(cache), { recursive: true });
      await symlink(elsewhere, dirname(cache));
      return dirname(cache);
    },
    true,
  ],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle("the recovery cache's folders as something else, judged by Reasonix 1.38.11"),
  () => {
    it.concurrent.each(cacheFolderCases)('%s', async (_, change, opens) => {
      const session = await resumedOnce();
      try {
        const changed = await change(session);
        const read = await readSession(session.dir);
        const reasonix = await resumeCopy(session);
        expect(reasonix.opens, reasonix.said).toBe(opens);
        if (opens) expect(read.problems.filter((problem) => problem.severity !== 'note')).toEqual([]);
        else {
          expect(reasonix.said).toMatch(/recovery-cache/);
          expect(read.refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: changed } });
          // Never said as a permission this user lacks: the folder is something else.
          expect(read.problems.map((problem) => problem.code)).not.toContain('RX_NOT_WRITABLE');
        }
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });
  },
);
