// The real Reasonix 1.38.11 refuses each record-level fault of a v4 log as rxstore does: the same
// verdict, exit code 1, and where it can be compared, the same words and the same offset.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { codecFaults, expectRxstoreVerdict, source } from '../../support/faults/codec-faults.js';
import { copySession } from '../../support/faults/faults.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

describe.skipIf(!reasonixBinary())(
  reasonixTitle('codec faults: Reasonix 1.38.11 refuses each one as rxstore does'),
  () => {
    it.concurrent.each(codecFaults)('$name', async (fault) => {
      const dir = await copySession(source.dir);
      const message = await expectRxstoreVerdict(dir, fault, await fault.damage(dir));
      const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Are you there?' });
      try {
        const said = `${resumed.stdout}\n${resumed.stderr}`;
        expect(resumed.code, said).toBe(1);
        expect(said).toMatch(fault.reasonix);
        if (fault.sameWords) expect(said).toContain(`error: damaged session store: ${message}\n`);
        // Both name the same place: the offset (or sequence) in rxstore's message is in Reasonix's.
        const place = /(?:at|sequence) \d+/.exec(message);
        if (fault.status === 'damaged' && place) expect(said).toContain(place[0]);
      } finally {
        await rm(resumed.home, { recursive: true, force: true });
      }
    });
  },
);
