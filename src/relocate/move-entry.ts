import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, readdir, rename, rm, truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { constants } from 'node:fs';
import { DamagedStoreError, isSystemError } from '../errors/index.js';
import { DIR_MODE, fsyncDir } from '../fs/atomic-write.js';
import { failPoint, writePoint } from '../fs/fail-point.js';
import { noSpaceLeft } from '../fs/write-all.js';
import { open } from 'node:fs/promises';
import { makeFolders } from '../fs/make-folders.js';

/** Whether anything (a file, folder or link) stands at `path`. */
export async function present(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The SHA-256 of a file's bytes, streamed: memory stays one chunk whatever the file's size. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies a file or a folder tree to `to` (which must not exist), each file flushed to disk and
 * checked byte for byte against its source before the call returns. Only regular files and
 * folders are copied: anything else in a session is refused, as Reasonix refuses it.
 */
export async function copyVerified(from: string, to: string): Promise<void> {
  if (await present(to))
    throw Object.assign(new Error(`EEXIST: file already exists, copy '${from}' -> '${to}'`), {
      code: 'EEXIST',
      errno: -17,
      syscall: 'copyfile',
      path: to,
    });
  try {
    await copyTree(from, to);
  } catch (error) {
    // A copy that stopped part way (a full disk) is removed: it is this call's own, and a re-run must never take it for a whole one.
    await rm(to, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

async function copyTree(from: string, to: string): Promise<void> {
  const stats = await lstat(from);
  if (stats.isDirectory()) {
    await mkdir(to, { mode: stats.mode & 0o777 });
    for (const name of await readdir(from)) await copyTree(join(from, name), join(to, name));
    await fsyncDir(to);
    return;
  }
  if (!stats.isFile())
    throw new DamagedStoreError(
      `${from} is neither a file nor a folder: it cannot be copied into the new workspace's store`,
      { file: from },
    );
  const fault = writePoint('relocate.copy');
  await copyFile(from, to, constants.COPYFILE_EXCL);
  // The fault a test arms: the disk filled part way through this file.
  if (fault === 'enospc') {
    await truncate(to, Math.floor(stats.size / 2));
    throw noSpaceLeft();
  }
  const handle = await open(to, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  if ((await fileDigest(from)) !== (await fileDigest(to)))
    throw new DamagedStoreError(`${to} does not hold the bytes of ${from} after it was copied`, { file: to });
}

/**
 * Moves `from` to `to` (which must not exist): a rename within one file system, the atomic step
 * that leaves the entry in exactly one of the two places. Across file systems (EXDEV) it is copied
 * beside its target under a hidden name, checked, renamed into place, and only then the old one
 * removed. `point` names the step for the crash tests.
 */
export async function moveEntry(from: string, to: string, point: string): Promise<void> {
  makeFolders(dirname(to), DIR_MODE);
  try {
    await rename(from, to);
  } catch (error) {
    if (!isSystemError(error) || error.code !== 'EXDEV') throw error;
    const staged = join(dirname(to), `.rxstore-relocating-${process.pid}-${Date.now()}`);
    await copyVerified(from, staged);
    await rename(staged, to);
    await fsyncDir(dirname(to));
    failPoint(`${point}.copied`);
    await rm(from, { recursive: true, force: true });
  }
  await fsyncDir(dirname(to));
  await fsyncDir(dirname(from));
  failPoint(point);
}

/**
 * Puts a content-store file at `to` from `from`: a hard link on one file system (objects are
 * immutable, so both stores may share the bytes), else a checked copy published by rename. A file
 * already there is kept when its bytes are the same, and refused otherwise.
 */
export async function bringFile(from: string, to: string, sameDevice: boolean): Promise<void> {
  if (await present(to)) {
    const [a, b] = await Promise.all([lstat(from, { bigint: true }), lstat(to, { bigint: true })]);
    if (a.ino === b.ino && a.dev === b.dev) return;
    if ((await fileDigest(from)) !== (await fileDigest(to)))
      throw new DamagedStoreError(
        `${to} is already in the new store with other bytes than ${from}: nothing more was moved`,
        { file: to },
      );
    return;
  }
  makeFolders(dirname(to), DIR_MODE);
  if (sameDevice) {
    try {
      await link(from, to);
      failPoint('relocate.content-linked');
      return;
    } catch (error) {
      // Another writer published the same object meanwhile: it is checked above on the next call.
      if (isSystemError(error) && error.code === 'EEXIST') return bringFile(from, to, sameDevice);
      if (
        !isSystemError(error) ||
        (error.code !== 'EPERM' && error.code !== 'ENOTSUP' && error.code !== 'EXDEV' && error.code !== 'EMLINK')
      )
        throw error;
    }
  }
  const staged = join(dirname(to), `.rxstore-relocating-${process.pid}-${Date.now()}`);
  await copyVerified(from, staged);
  await rename(staged, to);
  await fsyncDir(dirname(to));
  failPoint('relocate.content-copied');
}
