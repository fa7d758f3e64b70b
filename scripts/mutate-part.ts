// One part of the mutation run, with the test set it is judged by and a report and incremental file of its
// own under .stryker/parts/, so that a part finished is kept whatever stops the next one:
//
//   npm run mutate:part -- <name> '<files to mutate, comma-separated globs>' [vitest config] [stryker options]
//
// The vitest config defaults to vitest.mutate.config.ts (every in-process test); any options after it go to
// Stryker as they are (`--force` runs every mutant again, where the incremental file would keep a result). Stryker takes that
// setting only from a config file, so one is written for the part, on top of stryker.config.mjs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const [name, files, tests = 'vitest.mutate.config.ts', ...options] = process.argv.slice(2);
if (!name || !/^[\w-]+$/.test(name) || !files) {
  process.stderr.write("usage: npm run mutate:part -- <name> '<globs to mutate>' [vitest config] [stryker options]\n");
  process.exit(2);
}
mkdirSync('.stryker/parts', { recursive: true });
const config = `.stryker/parts/${name}.mjs`;
writeFileSync(
  config,
  `import base from '../../stryker.config.mjs';
export default {
  ...base,
  vitest: { ...base.vitest, configFile: ${JSON.stringify(tests)} },
  incrementalFile: '.stryker/parts/inc-${name}.json',
  jsonReporter: { fileName: '.stryker/parts/report-${name}.json' },
};
`,
);
const run = spawnSync('npx', ['stryker', 'run', config, '--ignoreStatic', '--mutate', files, ...options], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
