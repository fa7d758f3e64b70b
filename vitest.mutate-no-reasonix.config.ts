import { defineConfig } from 'vitest/config';
import unshared from './vitest.mutate-unshared.config.js';

// The unshared mutation test set without the files whose tests also run the real Reasonix, a run a test. A
// mutant of the session layer is reached by many of those tests, each run again for each mutant: the
// session's reading and replay would take hours a part. (recovery-cache-in-process stays: one Reasonix run
// for the whole file.) A narrower set can only detect fewer mutants, so a score
// measured with it is a floor; those files stay in `npm test`, where Reasonix judges every read.
const drivesReasonix = new Set([
  'test/session/cursors/records-since.test.ts',
  'test/session/reading/damage-is-never-silent.test.ts',
  'test/session/writing/salvage-past-damage.test.ts',
  'test/session/writing/repair-salvage.test.ts',
  'test/session/cursors/library-follow.test.ts',
]);
const include = unshared.test!.include!.filter((file) => !drivesReasonix.has(file));
export default defineConfig({ ...unshared, test: { ...unshared.test, include } });
