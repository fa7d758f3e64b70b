import { constants } from 'node:fs';
import { open, stat, unlink, type FileHandle } from 'node:fs/promises';
import fsExt from 'fs-ext-extra-prebuilt';
import { fileSystemErrorOf, FileSystemError, NotRegularFileError, WriterOwnedError } from '../errors/index.js';
import { FILE_MODE } from './file-modes.js';
import { mayExist } from './may-exist.js';

/**
 * The OS advisory lock Reasonix uses for its writer, migration-map and registry locks (docs/format.md §9.5):
 * `flock(LOCK_EX|LOCK_NB)` on Unix, `LockFileEx` on byte 0 on Windows. Held while the handle is
 * open; the OS drops it when the holder dies, so a lock file left behind is never a held lock.
 */
export interface OsLock {
  path: string;
  release(): Promise<void>;
}

const isWindows = process.platform === 'win32';

/**
 * Takes the lock on an open file without waiting: exclusive to hold it as a writer, shared to look
 * whether a writer holds it — shared locks never conflict with each other, so two rxstore
 * processes looking at once never see each other's look as a writer.
 */
export function tryLockHandle(handle: FileHandle, mode: 'exclusive' | 'shared'): boolean {
  try {
    if (isWindows) {
      const exclusive = mode === 'exclusive' ? fsExt.constants.LOCKFILE_EXCLUSIVE_LOCK : 0;
      fsExt.lockFileExSync(handle.fd, exclusive | fsExt.constants.LOCKFILE_FAIL_IMMEDIATELY, 0, 0, 1, 0);
    } else {
      fsExt.flockSync(handle.fd, mode === 'exclusive' ? 'exnb' : 'shnb');
    }
    return true;
  } catch (error) {
    // Held by another: `flock` says EWOULDBLOCK (EAGAIN on some systems); `LockFileEx` says ERROR_LOCK_VIOLATION
    // (EACCES once mapped). Any other error (EBADF, ENOLCK, …) is not an answer about the lock.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    if (isWindows && (code === 'ERROR_LOCK_VIOLATION' || code === 'EACCES')) return false;
    throw error;
  }
}

/**
 * A lock file must be a regular file: a FIFO or device there is refused, never waited on. One that is
 * taken (`O_NOFOLLOW` in `flags`) is never a link: opened with `O_CREAT` through one, it would make a
 * file wherever the link leads.
 */
async function openLockFile(path: string, flags: number, mode?: number): Promise<FileHandle> {
  const handle = await open(path, flags | constants.O_NONBLOCK, mode).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP' && (flags & (constants.O_NOFOLLOW ?? 0)) !== 0)
      throw new NotRegularFileError(`${path} is a symbolic link, so it cannot be a lock file`, { file: path });
    throw fileSystemErrorOf(error, path);
  });
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new NotRegularFileError(`${path} is not a regular file, so it cannot be a lock file`, { file: path });
  }
  return handle;
}

/** Takes the lock on `path` (creating the file, 0600, if absent) without waiting; undefined when it is held. */
export async function tryOsLock(path: string): Promise<OsLock | undefined> {
  const handle = await openLockFile(
    path,
    constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
    FILE_MODE,
  );
  if (!tryLockHandle(handle, 'exclusive')) {
    await handle.close();
    return undefined;
  }
  return { path, release: () => handle.close() };
}

/** How often a lock file is opened again when the one locked was removed meanwhile (its holder let it go). */
const REMOVED_WHILE_LOCKED_TRIES = 5;

/**
 * Takes the lock on a lock file its holders remove as they let it go, as Reasonix does the JSONL lease
 * (docs/format.md §9.5): a taker that opened the file before it was removed locks a file no name leads to,
 * which nobody else sees, so the lock counts only while the file locked is still the one at `path` (opened
 * again when it is not). Its release removes the file, then lets the lock go, as Reasonix's does. Undefined
 * when another holds it.
 */
export async function tryRemovableOsLock(path: string): Promise<OsLock | undefined> {
  for (let attempt = 0; attempt < REMOVED_WHILE_LOCKED_TRIES; attempt += 1) {
    // Never through a symbolic link: one planted there would have a file made where it points, and the link
    // itself removed on release, neither of them rxstore's.
    const handle = await openLockFile(
      path,
      constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
      FILE_MODE,
    );
    let locked = false;
    try {
      if (!tryLockHandle(handle, 'exclusive')) return undefined;
      const [held, there] = await Promise.all([handle.stat(), stat(path).catch(() => undefined)]);
      locked = there !== undefined && there.ino === held.ino && there.dev === held.dev;
    } finally {
      if (!locked) await handle.close();
    }
    if (locked)
      return {
        path,
        release: async () => {
          // Windows keeps an open file from being removed: the file stays, as a lock file left behind does.
          await unlink(path).catch(() => undefined);
          await handle.close();
        },
      };
  }
  return undefined;
}

/** Whether another process holds the lock on an existing file; never creates the file. */
export async function isOsLockHeld(path: string): Promise<boolean> {
  // No lock file, no lock (Reasonix never deletes one): said by a stat that makes no error, where a
  // failed open makes two — most of a warm listing's time when every session was probed that way.
  if (!mayExist(path)) return false;
  const handle = await openLockFile(path, constants.O_RDONLY).catch((error: unknown) => {
    // No lock file (or no session directory, or a name too long to be one), a symlink loop nobody can open,
    // or something there that is not a file: no writer holds a lock on it (Reasonix locks a regular file,
    // docs/format.md §9.5). One this user may not open, no Reasonix run by this user holds, and whether
    // another's does cannot be seen: the reads that need the file say what stops them. Any other error surfaces.
    if (
      error instanceof FileSystemError &&
      ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP', 'EACCES', 'EPERM'].includes(error.data.errno ?? '')
    )
      return undefined;
    if (error instanceof NotRegularFileError) return undefined;
    throw error;
  });
  if (!handle) return false;
  try {
    return !tryLockHandle(handle, 'shared');
  } finally {
    await handle.close();
  }
}

/** Takes the lock, retrying `attempts` times `delayMs` apart before giving up. */
export async function waitOsLock(path: string, attempts: number, delayMs: number): Promise<OsLock | undefined> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const lock = await tryOsLock(path);
    if (lock) return lock;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  return undefined;
}

/**
 * Holds a folder's own lock (`flock` on the folder) while `work` runs, so that rxstore writers that publish
 * several files into one folder do it one at a time: two exports of a transcript and its `.jsonl.meta` to one
 * path at once interleaved their renames, and left one's transcript beside the other's sidecar. A holder is
 * waited for `waitMs` at most (its renames take milliseconds), then `WriterOwnedError`. A system that cannot lock
 * the folder (Windows, a file system without locks) runs `work` without it.
 */
export async function withFolderLock<T>(dir: string, work: () => Promise<T>, waitMs = 10_000): Promise<T> {
  if (isWindows) return work();
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return work();
  }
  try {
    let locked: boolean;
    try {
      for (let waited = 0; !(locked = tryLockHandle(handle, 'exclusive')) && waited < waitMs; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } catch {
      // A file system whose folders take no lock.
      return await work();
    }
    if (!locked)
      throw new WriterOwnedError(`another rxstore is writing files into ${dir}; try again once it is done`, {
        file: dir,
      });
    return await work();
  } finally {
    await handle.close();
  }
}
