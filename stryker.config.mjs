// Mutation testing of the codec and the session layer: `npm run mutate` (not part of `npm test`).
// One part at a time: `npm run mutate -- --mutate 'src/codec/**/*.ts'`; a part judged by another test set, with its
// own report: `npm run mutate:part -- <name> '<globs>' [vitest config]` (scripts/mutate-part.ts).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/codec/**/*.ts', 'src/session/**/*.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // The machine is shared: at most two mutants at a time.
  concurrency: 2,
  incremental: true,
  incrementalFile: '.stryker/incremental.json',
  tempDirName: '.stryker/tmp',
  // The in-process tests import src/; the built CLI is not copied into the sandbox (a test run
  // that rebuilds it meanwhile would otherwise break the copy).
  ignorePatterns: ['dist', '.bench'],
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: '.stryker/mutation.json' },
  thresholds: { high: 85, low: 75, break: null },
  timeoutMS: 5_000,
};
