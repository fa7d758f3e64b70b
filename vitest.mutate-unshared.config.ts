import { defineConfig } from 'vitest/config';
import base from './vitest.mutate.config.js';

// The mutation test set without the tests that compare a read on a worker thread with a read on this one.
// Stryker switches a mutant on in its own thread only: a worker runs the code unmutated, so those tests
// would kill every mutant of the code both threads share by comparing it with the original, which is not
// a judgement any test makes of rxstore. Parts that mutate that shared code (the codec below the log
// worker) use this set; the log worker's own files use the whole one.
const include = base.test!.include!.filter((file) => file !== 'test/codec/log-read-in-worker.test.ts');
export default defineConfig({ ...base, test: { ...base.test, include } });
