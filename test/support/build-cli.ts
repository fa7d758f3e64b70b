import { execFileSync } from 'node:child_process';
import { repoRoot } from './paths.js';

/**
 * Builds `dist/` once before the tests, so tests that run `bin/rxstore.js` as a child process (a
 * user's view, and the only way to SIGKILL it mid-write) run the code under test, never a stale build.
 */
export default function buildCli(): void {
  execFileSync(process.execPath, [`${repoRoot}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: repoRoot, stdio: 'inherit' });
}
