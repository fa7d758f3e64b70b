import { randomBytes } from 'node:crypto';
import { lstatSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE } from './file-modes.js';
import { removeIfAbandoned } from './abandoned-file.js';
import { tryLockHandle } from './os-lock.js';

/** The name of every folder rxstore builds a new session in before it publishes it (docs/format.md §9.6). */
const STAGING_NAME = /^\.tmp-rxstore-[0-9a-f]{12}$/;
/** Its lock file, beside it: never inside, so that the session published holds no file of rxstore's. */
const STAGING_LOCK_NAME = /^\.tmp-rxstore-[0-9a-f]{12}\.lock$/;
const LOCK_SUFFIX = '.lock';
/**
 * An older rxstore built its staging folders without a lock file, so whether its writer lives cannot be asked.
 * Such a writer writes into its folder without a pause of more than a few seconds (a batch of the log, a
 * `legacy/` copy): a folder in which nothing has changed for this long (by change times, which no one can set
 * back) was left by a writer that was killed.
 */
const UNLOCKED_ABANDONED_MS = 60_000;
/** How often a new name is drawn when the lock file made was taken away before it was locked. */
const LOCK_TRIES = 5;
/** Windows keeps an open file from being removed, and its locks are not flock's: its staging folders are neither locked nor swept. */
const isWindows = process.platform === 'win32';

/** A staging folder being built: its path, and `release` to call once it is published or removed. */
export interface StagingFolder {
  path: string;
  /** Removes the folder's lock file and lets the lock go: after the folder was renamed into place or removed. */
  release(): Promise<void>;
}

/**
 * Makes a new staging folder in `dir` (`.tmp-rxstore-<12 hex>`), locked (`flock` on `.tmp-rxstore-<12 hex>.lock`
 * beside it) from before the folder exists until `release`: a staging folder whose lock can be taken is one whose
 * writer was killed (`removeAbandonedStagingFolders`). The system's error is thrown as it is.
 */
export async function makeStagingFolder(dir: string): Promise<StagingFolder> {
  let path = join(dir, `.tmp-rxstore-${randomBytes(6).toString('hex')}`);
  let lock: FileHandle | null = null;
  for (let attempt = 0; !isWindows && lock === null && attempt < LOCK_TRIES; attempt += 1) {
    if (attempt > 0) path = join(dir, `.tmp-rxstore-${randomBytes(6).toString('hex')}`);
    lock = await lockedNewFile(`${path}${LOCK_SUFFIX}`);
  }
  // Without a lock (on Windows, or a lock file taken away at every try), the folder is swept as an older
  // rxstore's is: only once nothing in it has changed for a minute.
  const release = async () => {
    if (!lock) return;
    await unlink(`${path}${LOCK_SUFFIX}`).catch(() => undefined);
    await lock.close().catch(() => undefined);
  };
  try {
    await mkdir(path, { mode: DIR_MODE });
  } catch (error) {
    await release();
    throw error;
  }
  return { path, release };
}

/**
 * A new file at `path`, locked; null when it was taken away before it was locked (by another rxstore's sweep,
 * come upon it in the instant between): a lock on it would be a lock no one sees.
 */
async function lockedNewFile(path: string): Promise<FileHandle | null> {
  const handle = await open(path, 'wx', FILE_MODE);
  try {
    try {
      if (!tryLockHandle(handle, 'exclusive')) {
        await handle.close();
        return null;
      }
    } catch {
      // A file system without locks: the folder is built all the same, and a sweep, which cannot take the lock
      // either, never takes it for abandoned.
      return handle;
    }
    const [held, there] = await Promise.all([handle.stat(), lstat(path).catch(() => undefined)]);
    if (there?.ino === held.ino && there.dev === held.dev) return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close();
  return null;
}

/**
 * Removes, from `dir`, the staging folders that rxstore writers killed before they could publish them left there
 * (a `kill -9` during a migration or a salvage), with their lock files: each of this user's whose lock can be
 * taken, that is, whose writer is gone; and each an older rxstore left without a lock file, once nothing in it has
 * changed for a minute. Only folders of rxstore's own staging name, never through a symbolic link, never one in
 * use; nothing that cannot be looked at is touched, and no error is said: a folder left stays as it was.
 */
export async function removeAbandonedStagingFolders(dir: string): Promise<void> {
  if (isWindows) return;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const present = new Set(names);
  for (const name of names) {
    const path = join(dir, name);
    if (STAGING_NAME.test(name)) {
      // Looked for now, not in the listing: a writer makes the lock file before its folder and removes it after.
      if (hasLockFile(path)) await removeIfUnlocked(path);
      else await removeIfSettled(path);
    } else if (STAGING_LOCK_NAME.test(name) && !present.has(name.slice(0, -LOCK_SUFFIX.length))) {
      // A lock file without its folder: its writer was killed just before it made the folder, or just after it published it.
      await removeIfUnlocked(path.slice(0, -LOCK_SUFFIX.length));
    }
  }
}

/** Whether anything stands at the lock file's name of the staging folder `path` (a link not followed); any doubt says yes. */
function hasLockFile(path: string): boolean {
  try {
    return lstatSync(`${path}${LOCK_SUFFIX}`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** Removes the staging folder `path` (if there) and its lock file when the lock can be taken: its writer is gone. */
async function removeIfUnlocked(path: string): Promise<void> {
  await removeIfAbandoned(`${path}${LOCK_SUFFIX}`, {
    first: async () => {
      const folder = await lstat(path).catch(() => undefined);
      if (folder === undefined) return true;
      if (!folder.isDirectory() || !isMine(folder)) return false;
      await rm(path, { recursive: true });
      return true;
    },
  });
}

/** Removes a staging folder of no lock file (an older rxstore's) when nothing in it has changed for a minute. */
async function removeIfSettled(path: string): Promise<void> {
  try {
    const folder = await lstat(path);
    if (!folder.isDirectory() || !isMine(folder)) return;
    if (Date.now() - (await newestChange(path, folder)) < UNLOCKED_ABANDONED_MS) return;
    await rm(path, { recursive: true });
  } catch {
    // Left as it is.
  }
}

/** The latest change time of a folder and of everything in it, links looked at and never followed. */
async function newestChange(path: string, stats: Stats): Promise<number> {
  let newest = stats.ctimeMs;
  if (!stats.isDirectory()) return newest;
  for (const name of await readdir(path)) {
    const inner = join(path, name);
    newest = Math.max(newest, await newestChange(inner, await lstat(inner)));
  }
  return newest;
}

function isMine(stats: Stats): boolean {
  return stats.uid === process.getuid?.();
}
