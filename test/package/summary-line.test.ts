// The closing line CI reads: a test process that dies takes its tests with it, and a global setup that fails
// (the CLI's build) runs no file at all; both must count as failed, never as a green-looking `0 failed`.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const vitest = resolve('node_modules/vitest/vitest.mjs');
const reporter = resolve('test/support/summary-reporter.ts');

it('counts the tests of a test process that died as failed, and says they never finished', async () => {
  const dir = await tempDir('rxstore-summary-');
  // Globals: the file sits outside the project, where `import 'vitest'` would not resolve.
  await writeFile(
    join(dir, 'dies.test.mjs'),
    "it('runs', () => {});\nit('kills its process', () => { process.kill(process.pid, 'SIGKILL'); });\nit('never runs', () => {});\n",
  );
  await writeFile(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { globals: true, include: ['dies.test.mjs'], pool: 'forks', reporters: [${JSON.stringify(reporter)}] } };`,
  );
  const run = spawnSync(process.execPath, [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(1);
  const line = run.stdout.trim().split('\n').at(-1)!;
  const counts = /^(\d+) passed, (\d+) failed \((\d+) never finished/.exec(line);
  expect(counts, line).not.toBeNull();
  const [passed, failed, unfinished] = counts!.slice(1).map(Number) as [number, number, number];
  // The test that killed its process and the one after it, at least; each counted once, none skipped.
  expect(unfinished).toBeGreaterThanOrEqual(2);
  expect(failed).toBeGreaterThanOrEqual(unfinished);
  expect(passed + unfinished).toBeLessThanOrEqual(3);
  expect(line).not.toMatch(/skipped/);
});

it('counts the test files of a run whose global setup failed as failed, and says they never ran', async () => {
  const dir = await tempDir('rxstore-summary-');
  await writeFile(join(dir, 'setup.mjs'), "export default function setup() { throw new Error('the build failed'); }\n");
  await writeFile(join(dir, 'a.test.mjs'), "it('runs', () => {});\n");
  await writeFile(join(dir, 'b.test.mjs'), "it('runs', () => {});\n");
  await writeFile(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { globals: true, include: ['*.test.mjs'], globalSetup: ['setup.mjs'], reporters: [${JSON.stringify(reporter)}] } };`,
  );
  const run = spawnSync(process.execPath, [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(1);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('0 passed, 2 failed (2 test files never ran)');
});
