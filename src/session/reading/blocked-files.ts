import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isSystemError, undefinedIfMissing } from '../../errors/index.js';
import { ownershipLockPath, SESSION_FILES } from './session-files.js';

/** A file Reasonix must open or replace when it opens a session, and why it cannot. */
export interface BlockedFile {
  file: string;
  why: string;
}

/**
 * The files Reasonix 1.38.11 must use to open a session that stand there as something it cannot use
 * (measured with the binary; docs/format.md §9.5): `writer.lock` as a directory, or as a symlink to
 * nothing (it resolves the lock file's identity first), the store's `.<id>.ownership.lock` as a directory,
 * and `storage.identity.json` as a directory (it
 * writes the identity by renaming a temporary file over it). Either makes it refuse to open the session.
 * A missing file is no obstacle: Reasonix creates it.
 */
export async function blockedFiles(sessionDir: string): Promise<BlockedFile[]> {
  const found: BlockedFile[] = [];
  const lock = join(sessionDir, SESSION_FILES.writerLock);
  const lockEntry = await lstat(lock).catch((error: unknown) => undefinedIfMissing(error, lock));
  if (lockEntry?.isSymbolicLink()) {
    // A link to nothing, or a loop of links, resolves to no file.
    const target = await stat(lock).catch((error: unknown) => (isSystemError(error) && error.code === 'ELOOP' ? undefined : undefinedIfMissing(error, lock)));
    if (!target) found.push({ file: lock, why: 'a symlink to nothing: Reasonix cannot resolve its writer lock' });
    else if (target.isDirectory()) found.push({ file: lock, why: 'a symlink to a directory: Reasonix cannot take its writer lock' });
  } else if (lockEntry?.isDirectory()) found.push({ file: lock, why: 'a directory: Reasonix cannot take its writer lock' });
  const ownership = ownershipLockPath(dirname(sessionDir), basename(sessionDir));
  if ((await lstat(ownership).catch((error: unknown) => undefinedIfMissing(error, ownership)))?.isDirectory()) {
    found.push({ file: ownership, why: 'a directory: Reasonix cannot take its ownership lock' });
  }
  const identity = join(sessionDir, SESSION_FILES.identity);
  const identityEntry = await lstat(identity).catch((error: unknown) => undefinedIfMissing(error, identity));
  if (identityEntry?.isDirectory()) found.push({ file: identity, why: 'a directory: Reasonix cannot write the storage identity over it' });
  return found;
}
