import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/**
 * Whether reading the file never ends, as Reasonix reads it: a FIFO with no writer, a socket, or a device
 * that never runs out (`/dev/zero`; `/dev/null` ends at once, and Reasonix takes it as an empty file).
 * Looked at without waiting. A missing path, a regular file or a directory does not.
 */
export async function waitsForever(path: string): Promise<boolean> {
  const target = await stat(path).catch(() => undefined);
  if (!target || target.isFile() || target.isDirectory()) return false;
  if (target.isFIFO() || target.isSocket()) return true;
  const probe = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!probe) return false;
  try {
    const { bytesRead } = await probe.read(Buffer.alloc(1), 0, 1, null);
    return bytesRead > 0;
  } catch {
    return false;
  } finally {
    await probe.close();
  }
}
