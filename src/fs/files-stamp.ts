import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isSystemError } from '../errors/index.js';

/**
 * A digest of what a `stat` says of each file (size, modification and change times in nanoseconds,
 * device, inode; or that it is not there): equal only while none of them was written, replaced or
 * removed. A file rewritten in place has a new change time, which no one can set back.
 */
export async function filesStamp(paths: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  const stamps = await Promise.all(
    paths.map(async (path) => {
      const stats = await stat(path, { bigint: true }).catch((error: unknown) => {
        // Not there, or not to be looked at: either way not the file that was read, so the stamp differs.
        if (isSystemError(error)) return error.code ?? 'error';
        throw error;
      });
      return typeof stats === 'string' ? `${path}\0${stats}\n` : `${path}\0${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}\0${stats.dev}\0${stats.ino}\n`;
    }),
  );
  for (const stamp of stamps) hash.update(stamp);
  return hash.digest('hex');
}
