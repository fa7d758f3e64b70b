import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the whole run a cache folder of its own (`XDG_CACHE_HOME`, which every test process and
 * every CLI child inherits), so that `rxstore ls`'s summary cache never reads or writes the
 * machine's, and one run's cache never answers for another's.
 */
export default function isolateCache(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rxstore-test-cache-'));
  process.env.XDG_CACHE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
