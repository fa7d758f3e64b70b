import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the whole run a temporary folder of its own (`TMPDIR`, which `os.tmpdir()` reads in every test
 * process and every child inherits), removed when the run ends. Vitest may end a test process without
 * its `exit` handlers or its last hooks, and whatever it had not yet removed would stay in the machine's
 * temporary folder run after run.
 */
export default function runTempFolder(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rxstore-test-run-'));
  // Reasonix runs as another user in some tests, and may make its own temporary files: as /tmp lets it.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
