import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fsExt from 'fs-ext-extra-prebuilt';
import { WriterOwnedError } from '../codec/errors.js';
import { FILE_MODE } from '../fs/atomic-write.js';
import { ownershipLockPath, SESSION_FILES } from './session-files.js';

/**
 * Reasonix's writer locks (spec §9.5): an OS advisory lock on `<store>/.<id>.ownership.lock`
 * (outer) and on `<session>/writer.lock` (inner), `flock(LOCK_EX|LOCK_NB)` on Unix and
 * `LockFileEx` on byte 0 on Windows. The files are only where the lock lives: never deleted,
 * and a file left behind by a process that died is not a held lock.
 */
export interface WriterLocks {
  release(): Promise<void>;
}

function lockPaths(sessionDir: string): [outer: string, inner: string] {
  return [ownershipLockPath(dirname(sessionDir), basename(sessionDir)), join(sessionDir, SESSION_FILES.writerLock)];
}

const isWindows = process.platform === 'win32';

/** Takes the lock on an open file without waiting; false when another process holds it. */
function tryLock(handle: FileHandle): boolean {
  try {
    if (isWindows) {
      fsExt.lockFileExSync(handle.fd, fsExt.constants.LOCKFILE_EXCLUSIVE_LOCK | fsExt.constants.LOCKFILE_FAIL_IMMEDIATELY, 0, 0, 1, 0);
    } else {
      fsExt.flockSync(handle.fd, 'exnb');
    }
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EACCES' || code === 'ERROR_LOCK_VIOLATION') return false;
    throw error;
  }
}

/**
 * Takes both writer locks, outer first, as Reasonix does; refuses at once with
 * `WriterOwnedError` when a running Reasonix (or anyone) holds either.
 */
export async function acquireWriterLocks(sessionDir: string): Promise<WriterLocks> {
  const held: FileHandle[] = [];
  const releaseAll = async () => {
    // Closing the descriptor releases its lock.
    await Promise.all(held.splice(0).map((handle) => handle.close()));
  };
  try {
    for (const path of lockPaths(sessionDir)) {
      const handle = await open(path, constants.O_RDWR | constants.O_CREAT, FILE_MODE);
      held.push(handle);
      if (!tryLock(handle)) {
        throw new WriterOwnedError(`session writer is owned by another runtime: ${basename(sessionDir)}`, { file: path });
      }
    }
  } catch (error) {
    await releaseAll();
    throw error;
  }
  return { release: releaseAll };
}

/**
 * Whether a running process holds either writer lock, found by briefly trying to take it (the
 * only way to see an advisory lock). Opens existing lock files only: a probe never creates one.
 */
export async function writerLockHolder(sessionDir: string): Promise<string | undefined> {
  for (const path of lockPaths(sessionDir)) {
    const handle = await open(path, constants.O_RDONLY).catch(() => undefined);
    if (!handle) continue;
    try {
      if (!tryLock(handle)) return path;
    } finally {
      await handle.close();
    }
  }
  return undefined;
}
