// rxstore names each record-level fault of a v4 log on every platform, Reasonix binary or not.
import { describe, it } from 'vitest';
import { codecFaults, expectRxstoreVerdict, source } from '../support/faults/codec-faults.js';
import { copySession } from '../support/faults/faults.js';

describe('codec faults: rxstore names each one', () => {
  it.concurrent.each(codecFaults)('$name', async (fault) => {
    const dir = await copySession(source.dir);
    await expectRxstoreVerdict(dir, fault, await fault.damage(dir));
  });
});
