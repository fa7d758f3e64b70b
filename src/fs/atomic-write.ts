import type { Stats } from 'node:fs';
import { lstat, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  FileSystemError,
  fileSystemErrorOf,
  isSystemError,
  PathKindError,
  undefinedIfMissing,
} from '../errors/index.js';
import { failPoint } from './fail-point.js';
import { kindInWords } from './path-kind.js';
import { expectSize, writeAll } from './write-all.js';

import { FILE_MODE, OUTPUT_FILE_MODE } from './file-modes.js';
import { openTempBeside, refuseTempName, removeAbandonedTemps } from './temp-files.js';

export { DIR_MODE, FILE_MODE, OUTPUT_DIR_MODE, OUTPUT_FILE_MODE } from './file-modes.js';

/** Writes bytes to a file being made; resolves when all of them are written. */
export type WriteBytes = (data: Uint8Array | string) => Promise<void>;

/** Makes a directory entry durable: fsync of the directory itself (skipped only where the file system does not support it). */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
    failPoint('dir.synced');
  } catch (error) {
    // Some file systems refuse fsync on a directory (EINVAL, ENOTSUP): the rename itself is still atomic.
    // Any other failure (EIO: the entry may not be on disk) is a failed write.
    if (!isSystemError(error) || (error.code !== 'EINVAL' && error.code !== 'ENOTSUP'))
      throw fileSystemErrorOf(error, dir);
  } finally {
    await handle.close();
  }
}

/**
 * Creates `path`, which must not exist, with `data`, made durable (fsync) before it returns. If
 * any of it fails, the file is removed (it is this call's own) and the error names `shown`, the
 * file a person knows (a staged file stands for the one it becomes).
 */
export async function writeNewFile(
  path: string,
  data: Uint8Array | string | AsyncIterable<Uint8Array>,
  shown = path,
): Promise<void> {
  const handle = await open(path, 'wx', FILE_MODE).catch((error: unknown) => {
    throw isSystemError(error) ? new FileSystemError(error, shown) : error;
  });
  try {
    let written = 0;
    // Pieces, for what may be larger than memory should hold: each written whole before the next is asked for.
    if (typeof data === 'string' || data instanceof Uint8Array)
      written = await writeAll(handle, data, shown, 'write.new-file');
    else for await (const piece of data) written += await writeAll(handle, piece, shown, 'write.new-file');
    failPoint('new-file.written');
    await handle.sync();
    failPoint('new-file.synced');
    await expectSize(handle, written, shown);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw isSystemError(error) ? new FileSystemError(error, shown) : error;
  }
}

/**
 * How a file is made: its mode before the umask (default `FILE_MODE`: a store's file, always made
 * so; `OUTPUT_FILE_MODE`: a user's file, written only over a regular file, whose mode it keeps),
 * and the name of its writes for the crash tests.
 */
export interface WriteOptions {
  mode?: number;
  point?: string;
  /** The path errors name, where `path` is not one a person knows (a file in a staging folder); default `path`. */
  shown?: string;
}

/**
 * Writes `path` so that a reader sees either the old file or the whole new one, never a part:
 * temp file in the same directory, written by `write` (every byte, or a coded error), fsynced, its
 * size checked against what was written, renamed over the target, then the directory fsynced. If
 * anything fails, the temp file is removed and the target is left as it was; the error names `path`.
 * A user's file (`OUTPUT_FILE_MODE`) is written only over a regular file, whose mode it keeps: a
 * symbolic link, a FIFO or a device there is refused (`RX_PATH_KIND`), checked before the temp file
 * is made and again just before the rename.
 */
export async function writeThroughTemp<T>(
  path: string,
  write: (bytes: WriteBytes) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  const shown = options.shown ?? path;
  const usersFile = options.mode === OUTPUT_FILE_MODE;
  if (usersFile) refuseTempName(path, shown);
  const before = usersFile ? await regularOrNothing(path, shown) : undefined;
  // A system error names the file asked for (never the temporary name), with its code: a FileSystemError.
  const { temp, handle } = await openTempBeside(path, options.mode ?? FILE_MODE).catch((error: unknown) => {
    throw isSystemError(error) ? new FileSystemError(error, shown) : error;
  });
  let result: T;
  let written = 0;
  const point = options.point ?? 'write.atomic';
  try {
    if (before) await keepModeOf(handle, before);
    result = await write(async (data) => {
      written += await writeAll(handle, data, shown, point);
    });
    failPoint('atomic.temp-written');
    await handle.sync();
    failPoint('atomic.temp-synced');
    await expectSize(handle, written, shown);
    failPoint('atomic.before-rename');
    // What stands there may have changed while the file was written: a rename never replaces a link or a device.
    if (usersFile) await regularOrNothing(path, shown);
    await rename(temp, path);
    // Closed once named (synced and its size checked: a close has nothing left to lose), so that the temp
    // stays locked, never taken for abandoned, for as long as it is one.
    await handle.close().catch(() => undefined);
    failPoint('atomic.renamed');
  } catch (error) {
    // Closing again after a failed close says nothing new: the write's own error is the one to tell.
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    // The system's own error names the temporary file: the error names the file asked for.
    throw isSystemError(error) ? new FileSystemError(error, shown) : error;
  }
  await fsyncDir(dirname(path));
  // What a killed write to the same folder left is taken away: a user's folder holds no temps of rxstore's.
  if (usersFile) await removeAbandonedTemps(dirname(path));
  return result;
}

/** What stands at `path` when it is a regular file; nothing there is undefined; anything else is refused. */
export async function regularOrNothing(path: string, shown: string): Promise<Stats | undefined> {
  const there = await lstat(path).catch((error: unknown) => undefinedIfMissing(error, shown));
  if (there && !there.isFile())
    throw new PathKindError(
      `${shown}: is ${kindInWords(there)}; rxstore writes only over a regular file, --force or not`,
      { file: shown },
    );
  return there;
}

/** A user's file written over keeps its permissions, and, where root writes it, its owner and group. */
export async function keepModeOf(handle: FileHandle, before: Stats): Promise<void> {
  await handle.chmod(before.mode & 0o777);
  // A file system without owners (FAT, some network mounts) refuses: the file is still written, root's.
  if (process.getuid?.() === 0 && (before.uid !== 0 || before.gid !== 0))
    await handle.chown(before.uid, before.gid).catch(() => undefined);
}

/** `writeThroughTemp` of data at hand. */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  options: WriteOptions = {},
): Promise<void> {
  await writeThroughTemp(path, (write) => write(data), options);
}
