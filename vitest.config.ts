import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The run's temporary folder first: the others make theirs in it.
    globalSetup: [
      './test/support/run-temp-folder.ts',
      './test/support/build-cli.ts',
      './test/support/isolated-cache.ts',
    ],
    testTimeout: 60_000,
    // Concurrent tests start the real Reasonix each: no more at once than the machine has cores.
    maxConcurrency: availableParallelism(),
    // Test files at once: vitest's default leaves one core free (one file at a time on two cores),
    // while most files wait on child processes, retries and locks; a file per core keeps both busy.
    maxWorkers: availableParallelism(),
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
