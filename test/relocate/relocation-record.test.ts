// Relocations finishing at once each add their move to the state root's record: read, added to and written
// under rxstore's lock, none is lost (a run again of a lost one was taken for a mistyped folder, exit 2).
import { describe, expect, it } from 'vitest';
import { finishedBefore, recordRelocation } from '../../src/relocate/relocation-record.js';
import type { RelocationPlan } from '../../src/relocate/relocation-plan.js';
import { tempDir } from '../support/temp-dir.js';

const planOf = (from: string, to: string) => ({ from, to, session: null }) as RelocationPlan;

describe('the record of finished relocations', () => {
  it('keeps every one of several that finish at once', async () => {
    const stateRoot = await tempDir('rxstore-relocation-record-');
    const plans = Array.from({ length: 6 }, (_, at) => planOf(`/p/old-${at}`, `/p/new-${at}`));
    await Promise.all(plans.map((plan) => recordRelocation(stateRoot, plan, new Date())));
    for (const plan of plans) expect(await finishedBefore([stateRoot], plan, 'linux'), plan.from).toBeDefined();
    expect(await finishedBefore([stateRoot], planOf('/p/old-0', '/p/new-1'), 'linux')).toBeUndefined();
  });
});
