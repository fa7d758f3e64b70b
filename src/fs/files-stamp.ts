import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { isSystemError } from '../errors/index.js';

/**
 * A digest of what a `stat` says of each file (size, modification and change times in nanoseconds,
 * device, inode; or that it is not there): equal only while none of them was written, replaced or
 * removed. A file rewritten in place has a new change time, which no one can set back. The stats
 * are synchronous, as metadata looks are here: a warm listing stamps a few files per session, and
 * the promise API's round trips cost more than the stats.
 */
export async function filesStamp(paths: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const path of paths) {
    let stamp: string;
    try {
      const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
      stamp = stats ? `${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}\0${stats.dev}\0${stats.ino}` : 'ENOENT';
    } catch (error) {
      // Not to be looked at (EACCES, ENOTDIR, …): not the file that was read, so the stamp differs.
      if (!isSystemError(error)) throw error;
      stamp = error.code ?? 'error';
    }
    hash.update(`${path}\0${stamp}\n`);
  }
  return hash.digest('hex');
}
