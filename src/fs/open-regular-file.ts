import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { fileSystemErrorOf, onFileSystem } from '../errors/index.js';

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

/**
 * `openRegularFile` without a round trip through the thread pool, for the files every read of a
 * session opens: thousands of sessions read one after another waited more on those round trips than
 * they spent reading. Close it in a `finally`; one dropped unclosed (a reader abandoned half way)
 * gives its descriptor back when it is collected, so keep it, not only its `fd`, while reading.
 */
export function openRegularFileSync(path: string, refusal: () => Error): OpenRegularFile {
  const fd = onFileSystemSync(() => openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), path);
  try {
    const stats = onFileSystemSync(() => fstatSync(fd), path);
    if (!stats.isFile() && !stats.isDirectory()) throw refusal();
    return new OpenRegularFile(fd, stats);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A file opened by `openRegularFileSync`: its descriptor, and its stats when opened. */
export class OpenRegularFile {
  private closed = false;

  constructor(
    readonly fd: number,
    readonly stats: Stats,
  ) {
    unclosed.register(this, fd, this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    unclosed.unregister(this);
    closeSync(this.fd);
  }
}

const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Nothing left to give back.
  }
});

/** `onFileSystem` for a synchronous operation. */
export function onFileSystemSync<T>(operation: () => T, path?: string): T {
  try {
    return operation();
  } catch (error) {
    throw fileSystemErrorOf(error, path);
  }
}
