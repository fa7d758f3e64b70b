import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * The bytes of a regular file; undefined when the path is no regular file (a FIFO, a device, a
 * directory), is longer than `maxBytes`, is missing, or cannot be read. Opened without waiting: a FIFO
 * standing where a file belongs must never hang a reader. For a cache or a setting whose contents
 * rxstore only looks at.
 */
export function readRegularFile(path: string, maxBytes = Number.POSITIVE_INFINITY): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && stats.size <= maxBytes ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
