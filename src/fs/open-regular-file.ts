import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { onFileSystem } from '../errors/index.js';

/**
 * Opens a file to read it as the reader does: without waiting (a FIFO standing where a file belongs
 * must never hang a read) and only if it is a regular file or a directory (whose read fails with
 * the system's words); anything else — a FIFO, a socket, a device such as /dev/zero, which would
 * never end — is refused with the error `refusal` makes, before a byte is read. A system error is
 * a `FileSystemError` naming `path`.
 */
export async function openRegularFile(
  path: string,
  refusal: () => Error,
): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await onFileSystem(open(path, constants.O_RDONLY | constants.O_NONBLOCK), path);
  try {
    const stats = await onFileSystem(handle.stat(), path);
    if (!stats.isFile() && !stats.isDirectory()) throw refusal();
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
