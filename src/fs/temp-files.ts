import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InvalidInputError } from '../errors/index.js';
import { removeIfAbandoned } from './abandoned-file.js';
import { tryLockHandle } from './os-lock.js';

/** The name of every temporary file rxstore writes a file through (docs/format.md §9.6). */
const TEMP_NAME = /^\.rxstore-[0-9a-f]{16}\.tmp$/;
/** The name a temp has from its creation until it is locked and renamed (`openTempBeside`). */
const BORN_NAME = /^\.rxstore-[0-9a-f]{16}\.tmp\.new$/;
/**
 * A temp keeps its born name for the microseconds between its creation and its rename: one that has
 * kept it this long (by its change time, which no one can set back) was left by a writer killed in
 * between.
 */
const BORN_NAME_ABANDONED_MS = 60_000;
/** Windows keeps an open file from being removed, and its locks are not flock's: its temps are neither locked nor swept. */
const isWindows = process.platform === 'win32';

/**
 * A new temporary file beside `path` (`.rxstore-<16 hex>.tmp`, whatever the file's name: a name made
 * from the file's own would pass the system's limit for a long one), open for writing and locked
 * (`flock`) for as long as it is open: a temp whose lock can be taken is one whose writer was killed
 * (`removeAbandonedTemps`). It is made under another name and renamed once locked, so that no file of
 * a temp's name is ever seen unlocked while its writer lives. The system's error is thrown as it is.
 */
export async function openTempBeside(path: string, mode: number): Promise<{ temp: string; handle: FileHandle }> {
  const temp = join(dirname(path), `.rxstore-${randomBytes(8).toString('hex')}.tmp`);
  if (isWindows) return { temp, handle: await open(temp, 'wx', mode) };
  const born = `${temp}.new`;
  const handle = await open(born, 'wx', mode);
  try {
    try {
      tryLockHandle(handle, 'exclusive');
    } catch {
      // A file system without locks: the temp is written all the same, and never taken for abandoned.
    }
    await rename(born, temp);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(born, { force: true });
    throw error;
  }
  return { temp, handle };
}

/**
 * Refuses a user's file named as rxstore's temporary files are: the next write to its folder would take it
 * for one a killed writer left, and remove it.
 */
export function refuseTempName(path: string, shown = path): void {
  const name = basename(path);
  if (TEMP_NAME.test(name) || BORN_NAME.test(name))
    throw new InvalidInputError(
      `${shown}: a name of rxstore's own temporary files (.rxstore-<16 hex>.tmp), which a later write there removes; choose another`,
      { file: shown },
    );
}

/**
 * Removes, from `dir`, the temporary files that rxstore writers killed before they could remove them
 * left there (a `kill -9` during an export): each one of this user's whose lock can be taken, that is,
 * whose writer is gone, and each left under its born name a minute or more ago. Only rxstore's own names, only regular files of one name, never one in use; nothing that
 * cannot be looked at is touched, and no error is said: a temp left stays as it was.
 */
export async function removeAbandonedTemps(dir: string): Promise<void> {
  if (isWindows) return;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (TEMP_NAME.test(name)) await removeIfAbandoned(join(dir, name));
    else if (BORN_NAME.test(name)) await removeIfAbandoned(join(dir, name), { settledMs: BORN_NAME_ABANDONED_MS });
  }
}
