import lockfile from 'proper-lockfile';
import { WriterOwnedError } from '../errors/index.js';
import { DIR_MODE } from './atomic-write.js';
import { StoreLockCompromisedError } from '../errors/index.js';
import { makeFolders } from './make-folders.js';

/**
 * Runs `work` holding rxstore's own lock on a store directory (proper-lockfile). It guards
 * rxstore against rxstore — two migrations into one store — and is not Reasonix's lock: that one
 * is an OS flock on the session (docs/format.md §9.5). When the lock is compromised (its file touched by
 * someone else, or its refresh stalled), the work is told to stop instead of the process dying.
 */
export async function withStoreLock<T>(storeDir: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  makeFolders(storeDir, DIR_MODE);
  const compromised = new AbortController();
  const lockfilePath = `${storeDir}/.rxstore.lock`;
  const release = await lockfile
    .lock(storeDir, {
      lockfilePath,
      retries: { retries: 50, minTimeout: 20, maxTimeout: 500 },
      // Held only around a rename, so a lock left by a killed process is stale after a few seconds.
      stale: 5_000,
      onCompromised: (error) =>
        compromised.abort(
          new StoreLockCompromisedError(`rxstore's lock on ${storeDir} was compromised: ${error.message}`),
        ),
    })
    .catch((error: NodeJS.ErrnoException) => {
      // Still held after every retry: another rxstore is publishing into this store.
      if (error.code === 'ELOCKED')
        throw new WriterOwnedError(
          'the store stayed locked by another rxstore publishing into it; try again once it is done',
          { file: lockfilePath },
        );
      throw error;
    });
  try {
    return await work(compromised.signal);
  } finally {
    if (!compromised.signal.aborted) await release();
  }
}
