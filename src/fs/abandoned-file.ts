import { constants } from 'node:fs';
import { lstat, open, unlink, type FileHandle } from 'node:fs/promises';
import { tryLockHandle } from './os-lock.js';

/**
 * Removes `file` when it is one of this user's that its writer abandoned: a regular file of one name (a hard
 * link of that name to another file is someone's, and stays), unchanged for `settledMs`, whose lock can be taken
 * (no writer holds it any more). `first` runs while that lock is held, before the file goes: what the file stood
 * for (a staging folder beside a lock file) is removed first, and `false` leaves both. The file is opened without
 * following a link, and removed only while the very file locked is still at its name. Nothing is said: what
 * cannot be looked at or taken is left as it is.
 */
export async function removeIfAbandoned(
  file: string,
  options: { settledMs?: number; first?: () => Promise<boolean> } = {},
): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    const held = await handle.stat();
    if (!held.isFile() || held.nlink !== 1 || held.uid !== process.getuid?.()) return;
    if (Date.now() - held.ctimeMs < (options.settledMs ?? 0) || !tryLockHandle(handle, 'exclusive')) return;
    if (options.first && !(await options.first())) return;
    // The very file locked, still at its name: nothing put there since is removed.
    const there = await lstat(file);
    if (there.ino === held.ino && there.dev === held.dev) await unlink(file);
  } catch {
    // Left as it is.
  } finally {
    await handle.close().catch(() => undefined);
  }
}
