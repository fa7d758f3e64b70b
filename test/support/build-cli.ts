import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { bundleDist } from '../../scripts/bundle.js';
import { repoRoot } from './paths.js';

/**
 * Builds `dist/` afresh once before the tests, so tests that run `bin/rxstore.js` as a child
 * process (a user's view, and the only way to SIGKILL it mid-write) run the code under test, and
 * the packed package holds no file a stale build left behind.
 */
export default async function buildCli(): Promise<void> {
  rmSync(`${repoRoot}dist`, { recursive: true, force: true });
  execFileSync(process.execPath, [`${repoRoot}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  // What the package runs: the bundle of what tsc emitted (npm run build does the same two steps).
  await bundleDist(repoRoot);
}
