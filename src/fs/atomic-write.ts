import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileSystemErrorOf, isSystemError } from '../errors/index.js';
import { failPoint } from './fail-point.js';

/** Files rxstore writes are private to their owner, as Reasonix's are (docs/format.md §2). */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Makes a directory entry durable: fsync of the directory itself (skipped only where the file system does not support it). */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
    failPoint('dir.synced');
  } catch (error) {
    // Some file systems refuse fsync on a directory (EINVAL, ENOTSUP): the rename itself is still atomic.
    // Any other failure (EIO: the entry may not be on disk) is a failed write.
    if (!isSystemError(error) || (error.code !== 'EINVAL' && error.code !== 'ENOTSUP')) throw fileSystemErrorOf(error, dir);
  } finally {
    await handle.close();
  }
}

/** A name beside `path` that no other writer picks: `.atomic-<name>-<random>.tmp` (docs/format.md §9.6). */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.atomic-${basename(path)}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Creates `path`, which must not exist, with `data`, made durable (fsync) before it returns. */
export async function writeNewFile(path: string, data: Uint8Array | string): Promise<void> {
  const handle = await open(path, 'wx', FILE_MODE);
  try {
    await handle.writeFile(data);
    failPoint('new-file.written');
    await handle.sync();
    failPoint('new-file.synced');
  } finally {
    await handle.close();
  }
}

/**
 * Writes `path` so that a reader sees either the old file or the whole new one, never a part:
 * temp file in the same directory, written by `write`, fsynced, renamed over the target, then the
 * directory fsynced. If anything fails, the temp file is removed and the target is left as it was.
 */
export async function writeThroughTemp<T>(path: string, write: (handle: FileHandle) => Promise<T>): Promise<T> {
  const temp = tempPathBeside(path);
  // A system error names the file asked for (never the temporary name), with its code: a FileSystemError.
  const handle = await open(temp, 'wx', FILE_MODE).catch((error: unknown) => {
    throw fileSystemErrorOf(error, path);
  });
  let result: T;
  try {
    result = await write(handle);
    failPoint('atomic.temp-written');
    await handle.sync();
    failPoint('atomic.temp-synced');
    await handle.close();
    failPoint('atomic.before-rename');
    await rename(temp, path);
    failPoint('atomic.renamed');
  } catch (error) {
    // Closing again after a failed close says nothing new: the write's own error is the one to tell.
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw fileSystemErrorOf(error, path);
  }
  await fsyncDir(dirname(path));
  return result;
}

/** `writeThroughTemp` of data at hand. */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  await writeThroughTemp(path, (handle) => handle.writeFile(data));
}
