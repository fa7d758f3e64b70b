import { closeSync, constants, openSync, readSync, statSync, type Stats } from 'node:fs';

/**
 * Whether reading the file never ends, as Reasonix reads it: a FIFO with no writer, a socket, or a device
 * that never runs out (`/dev/zero`; `/dev/null` ends at once, and Reasonix takes it as an empty file).
 * Looked at without waiting. A missing path, a regular file or a directory does not.
 */
export function waitsForever(path: string): boolean {
  let target: Stats;
  try {
    target = statSync(path);
  } catch {
    return false;
  }
  if (!target || target.isFile() || target.isDirectory()) return false;
  if (target.isFIFO() || target.isSocket()) return true;
  let probe: number;
  try {
    probe = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    return readSync(probe, Buffer.alloc(1), 0, 1, null) > 0;
  } catch {
    return false;
  } finally {
    closeSync(probe);
  }
}
