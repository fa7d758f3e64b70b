import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * The bytes of a regular file; undefined when the path is no regular file (a FIFO, a device, a
 * directory), is missing, or cannot be read. Opened without waiting: a FIFO standing where a file
 * belongs must never hang a reader. For a cache whose contents rxstore only looks at.
 */
export function readRegularFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
