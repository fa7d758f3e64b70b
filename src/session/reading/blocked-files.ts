import { accessSync, constants, lstatSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isSystemError, undefinedIfMissing } from '../../errors/index.js';
import { ownershipLockPath, SESSION_FILES } from './session-files.js';
import { recoveryCacheDir } from './recovery-cache.js';
import { waitsForever } from '../../fs/waits-forever.js';
import { lstatOrUndefined } from '../../fs/stat-or-undefined.js';

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
export function blockedFiles(sessionDir: string): BlockedFile[] {
  const found: BlockedFile[] = [];
  const lock = join(sessionDir, SESSION_FILES.writerLock);
  const lockEntry = lstatOrUndefined(lock);
  if (lockEntry?.isSymbolicLink()) {
    // A link to nothing, or a loop of links, resolves to no file.
    let loop = false;
    let target: Stats | undefined;
    try {
      target = statSync(lock);
    } catch (error) {
      loop = isSystemError(error) && error.code === 'ELOOP';
      if (!loop) undefinedIfMissing(error, lock);
    }
    if (!target)
      found.push({
        file: lock,
        why: `${loop ? 'a symlink loop (too many links)' : 'a symlink to nothing'}: Reasonix cannot resolve its writer lock`,
      });
    else if (target.isDirectory())
      found.push({ file: lock, why: 'a symlink to a directory: Reasonix cannot take its writer lock' });
  } else if (lockEntry?.isDirectory())
    found.push({ file: lock, why: 'a directory: Reasonix cannot take its writer lock' });
  const ownership = ownershipLockPath(dirname(sessionDir), basename(sessionDir));
  if (lstatOrUndefined(ownership)?.isDirectory()) {
    found.push({ file: ownership, why: 'a directory: Reasonix cannot take its ownership lock' });
  }
  const identity = join(sessionDir, SESSION_FILES.identity);
  const identityEntry = lstatOrUndefined(identity);
  if (identityEntry?.isDirectory())
    found.push({ file: identity, why: 'a directory: Reasonix cannot write the storage identity over it' });
  else if (identityEntry && waitsForever(identity)) {
    // Reasonix opens the identity to read it (measured with 1.38.11).
    found.push({ file: identity, why: 'a FIFO, socket or endless device: Reasonix waits forever reading it' });
  }
  // The recovery cache's folders, which Reasonix makes when they are not there (measured with 1.38.11: `mkdir
  // …/.recovery-cache: not a directory`): a file, or a link to nothing, in the place of either stops it.
  const cache = recoveryCacheDir(sessionDir, basename(sessionDir));
  for (const folder of [dirname(cache), cache]) {
    if (!present(folder)) break;
    const there = statOrNothing(folder);
    if (there?.isDirectory()) continue;
    found.push({
      file: folder,
      why: `${there ? 'a file, not a folder' : 'a symlink to nothing'}: Reasonix cannot make its recovery cache of the session there`,
    });
    break;
  }
  return found;
}

/** What a stat says of the path, a link followed; undefined when it leads nowhere (or cannot be looked at: the reads that need it say so). */
function statOrNothing(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * What the user running rxstore may not write of what Reasonix, run by the same user, must write to open
 * the session (measured with 1.38.11 as another user): its writer lock and the store's ownership lock,
 * opened for reading and writing (or created), the session directory, where it writes the manifest
 * and the storage identity, and the session's recovery cache folder. A copy made by another user (`sudo
 * cp`), a read-only directory or file system: Reasonix refuses (`try acquire file lock: open …: permission
 * denied`). The session itself is sound, and another user (its owner) opens it: this is no verdict on it.
 */
export function unwritableFiles(sessionDir: string): BlockedFile[] {
  // A path that cannot even be looked at is not this check's to judge: the reads that need it say so.
  const found: BlockedFile[] = [];
  const lock = join(sessionDir, SESSION_FILES.writerLock);
  const lockExists = present(lock);
  const ownership = ownershipLockPath(dirname(sessionDir), basename(sessionDir));
  const dirWritable = mayUse(sessionDir, constants.W_OK | constants.X_OK);
  if (lockExists && !mayUse(lock, constants.R_OK | constants.W_OK)) {
    const what = mayUse(lock, constants.R_OK) ? 'not writable' : 'not readable';
    found.push({
      file: lock,
      why: `${what} by this user (permission denied): Reasonix, run by this user, cannot take its writer lock`,
    });
  }
  if (!dirWritable) {
    found.push({
      file: sessionDir,
      why: 'not writable by this user (permission denied): Reasonix, run by this user, writes the manifest and its locks there when it opens the session',
    });
  }
  const ownershipExists = present(ownership);
  const store = dirname(sessionDir);
  const ownershipWritable = ownershipExists
    ? mayUse(ownership, constants.R_OK | constants.W_OK)
    : mayUse(store, constants.W_OK | constants.X_OK);
  if (!ownershipWritable) {
    found.push({
      file: ownershipExists ? ownership : store,
      why: "not writable by this user (permission denied): Reasonix, run by this user, cannot take the store's ownership lock of the session",
    });
  }
  // Reasonix opens its recovery cache of the session when there is one: a checkpoint in it that it may not
  // open it replaces, and a folder it may only read it takes, but a folder it may not read stops it
  // (`open …/recovery-v1.bolt: permission denied`).
  const cache = recoveryCacheDir(sessionDir, basename(sessionDir));
  if (statOrNothing(cache)?.isDirectory() && !mayUse(cache, constants.R_OK | constants.X_OK)) {
    found.push({
      file: cache,
      why: 'not readable by this user (permission denied): Reasonix, run by this user, cannot open its recovery checkpoint of the session',
    });
  }
  // The log it opens for appending.
  const log = join(sessionDir, SESSION_FILES.log);
  if (present(log) && !mayUse(log, constants.R_OK | constants.W_OK)) {
    found.push({
      file: log,
      why: 'not writable by this user (permission denied): Reasonix, run by this user, cannot open the log to append to it',
    });
  }
  return found;
}

/** Whether something stands at the path (a link included); any doubt says no: the reads that need it decide. */
function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** Whether this process may use the path so (`access(2)`); a permission or a read-only file system says no, and anything else is not this check's to judge. */
function mayUse(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch (error) {
    return !(isSystemError(error) && (error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS'));
  }
}
