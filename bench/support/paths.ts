import { join } from 'node:path';
import { repoRoot } from '../../test/support/paths.js';

export { repoRoot };

/** Everything the bench writes lives here (gitignored): inputs reused across runs, scratch, results. */
export const benchDir = join(repoRoot, '.bench');
export const inputsDir = join(benchDir, 'inputs');
export const scratchDir = join(benchDir, 'scratch');
export const resultsFile = join(benchDir, 'results', 'latest.json');

/** The built CLI, run as a user runs it. */
export const rxstoreBin = join(repoRoot, 'bin', 'rxstore.js');

/**
 * The workspace every generated session belongs to. A short ASCII path, so its slug is the path
 * with `/` turned into `-` (docs/format.md §1.3), which is where `reasonix run --resume` looks.
 */
export const benchWorkspace = '/tmp/rxstore-bench-ws';
