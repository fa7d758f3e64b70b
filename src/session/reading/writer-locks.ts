import { basename, dirname, join } from 'node:path';
import { WriterOwnedError } from '../../errors/index.js';
import { isOsLockHeld, tryOsLock, type OsLock } from '../../fs/os-lock.js';
import { ownershipLockPath, SESSION_FILES } from './session-files.js';

/**
 * Reasonix's writer locks (docs/format.md §9.5): an OS lock on `<store>/.<id>.ownership.lock` (outer) and
 * on `<session>/writer.lock` (inner). The files are only where the lock lives: never deleted.
 */
export interface WriterLocks {
  release(): Promise<void>;
}

function lockPaths(sessionDir: string): [outer: string, inner: string] {
  return [ownershipLockPath(dirname(sessionDir), basename(sessionDir)), join(sessionDir, SESSION_FILES.writerLock)];
}

/**
 * Takes both writer locks, outer first, as Reasonix does; refuses at once with
 * `WriterOwnedError` when a running Reasonix (or anyone) holds either.
 */
export async function acquireWriterLocks(sessionDir: string): Promise<WriterLocks> {
  const held: OsLock[] = [];
  const release = async () => {
    await Promise.all(held.splice(0).map((lock) => lock.release()));
  };
  for (const path of lockPaths(sessionDir)) {
    const lock = await tryOsLock(path).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    if (!lock) {
      await release();
      throw new WriterOwnedError(`session writer is owned by another runtime: ${basename(sessionDir)}`, { file: path });
    }
    held.push(lock);
  }
  return { release };
}

/**
 * The writer lock a running process holds, if any, found by briefly trying to take it (the only
 * way to see an advisory lock). Opens existing lock files only: a probe never creates one.
 */
export async function writerLockHolder(sessionDir: string): Promise<string | undefined> {
  for (const path of lockPaths(sessionDir)) {
    if (await isOsLockHeld(path)) return path;
  }
  return undefined;
}
