// rxstore's verdicts on Reasonix's recovery cache, in process: one session the real Reasonix resumed once, then
// each change whose verdict Reasonix gave in test/reasonix/reads/recovery-cache-matches-reasonix, applied to a copy and read by
// rxstore alone. One Reasonix run for the file, so the mutation run can judge the cache checks by it.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boltDamage } from '../../../src/session/reading/bolt-damage.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import {
  cacheAheadCases,
  copyOfResumed,
  damagedCheckpoints,
  pagesOf,
  resumedOnce,
  zeroPage,
  type ResumedSession,
} from '../../support/reasonix/recovery-cache.js';

const errorsOf = (read: Awaited<ReturnType<typeof readSession>>) =>
  read.problems.filter((problem) => problem.severity === 'error');

describe.skipIf(!reasonixBinary())(
  reasonixTitle('a recovery cache, read in process as Reasonix 1.38.11 judged it'),
  () => {
    let resumed: ResumedSession;
    beforeAll(async () => {
      resumed = await resumedOnce();
    });
    afterAll(async () => {
      if (resumed) await rm(resumed.home, { recursive: true, force: true });
    });

    /** Runs `check` on a copy of the resumed session, removed afterwards. */
    async function onACopy(check: (session: ResumedSession) => Promise<void>): Promise<void> {
      const session = await copyOfResumed(resumed);
      try {
        await check(session);
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    }

    it.each(cacheAheadCases.filter(([, , , runsReasonix]) => !runsReasonix))('%s', (_, change, opens) =>
      onACopy(async (session) => {
        await change(session);
        const read = await readSession(session.dir);
        if (opens) {
          expect(errorsOf(read)).toEqual([]);
          return;
        }
        expect(read.refusal).toMatchObject({
          code: 'RX_RECOVERY_CACHE_AHEAD',
          data: { file: session.cache, sequence: read.lastSequence },
        });
        expect(read.refusal!.message).toMatch(
          /^Reasonix's recovery cache of the session holds the operation "(turn-finalize:turn_\w+|messages:turn-admission:\d+)" that (ends a turn this log leaves open|admits the next turn), which this log \(to sequence \d+\) does not hold: /,
        );
        expect(errorsOf(read)).toHaveLength(1);
      }),
    );

    it.each(damagedCheckpoints)('a checkpoint with %s', (_, damage, opens) =>
      onACopy(async (session) => {
        const checkpoint = join(session.cache, 'recovery-v1.bolt');
        const bolt = await readFile(checkpoint);
        expect(boltDamage(bolt)).toBeUndefined();
        const damaged = damage(bolt);
        expect(damaged.equals(bolt)).toBe(false);
        expect(boltDamage(damaged) === undefined).toBe(opens);
        await writeFile(checkpoint, damaged);
        const read = await readSession(session.dir);
        if (opens) {
          expect(errorsOf(read)).toEqual([]);
          return;
        }
        expect(read.refusal).toMatchObject({ code: 'RX_RECOVERY_CACHE_DAMAGED', data: { file: checkpoint } });
        expect(read.refusal!.message).toMatch(
          /^Reasonix's recovery checkpoint of the session is damaged \(.+\): Reasonix crashes when it opens the session/,
        );
      }),
    );

    it('judges the checkpoint with every page zeroed in turn, without an error of its own; the pages reached are damage', async () => {
      const bolt = await readFile(join(resumed.cache, 'recovery-v1.bolt'));
      const { reached, unreached } = pagesOf(bolt);
      // A database bbolt walks reaches its freelist and root pages at least, and Reasonix's checkpoint has freed pages too.
      expect(reached.length).toBeGreaterThanOrEqual(2);
      expect(unreached.length).toBeGreaterThanOrEqual(1);
      for (const page of reached) expect(boltDamage(zeroPage(bolt, page)), `page ${page}`).toMatch(/\S/);
    });
  },
);
