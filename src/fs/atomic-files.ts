import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, lstat, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileSystemErrorOf, FileSystemError, isSystemError } from '../errors/index.js';
import type { FileHandle } from 'node:fs/promises';
import { FILE_MODE, fsyncDir, keepModeOf, OUTPUT_FILE_MODE, regularOrNothing } from './atomic-write.js';
import { tryLockHandle, withFolderLock } from './os-lock.js';
import { openTempBeside, refuseTempName, removeAbandonedTemps } from './temp-files.js';
import { failPoint } from './fail-point.js';
import { expectSize, writeAll, writePieces } from './write-all.js';

/** One file of a set written together: `mode` as in `WriteOptions` (a user's file, `OUTPUT_FILE_MODE`, is written only over a regular file, whose mode it keeps). */
export interface FileToWrite {
  path: string;
  /** Its bytes, or text made a piece at a time (larger than memory should hold): what gives the pieces. */
  data: Uint8Array | string | (() => AsyncIterable<string>);
  mode?: number;
}

/**
 * Writes files that belong together (a transcript and its `.jsonl.meta`) so that they appear
 * whole or not at all: every file is written to a temporary beside it, fsynced and its size
 * checked, and only then are they renamed into place, in the order given (a sidecar first, so the
 * file a reader looks for never stands without it). A file of a set of several that is replaced is
 * kept under a temporary name (a second link to it) until the whole set is published. If any of it
 * fails, the temporaries are removed, every file this call published where nothing stood before is
 * removed, and every file it replaced is put back; the error names the file it is about.
 */
export async function writeFilesAtomic(files: readonly FileToWrite[], point = 'write.atomic'): Promise<void> {
  const staged: { temp: string; path: string; existed: boolean; usersFile: boolean }[] = [];
  // Each temp held open, and so locked, until it is named: never taken for one a killed writer left.
  const handles: FileHandle[] = [];
  const published: { path: string; existed: boolean }[] = [];
  // The files a set replaces, each kept under a temp's name until the set stands whole.
  const kept = new Map<string, KeptFile>();
  for (const file of files) if (file.mode === OUTPUT_FILE_MODE) refuseTempName(file.path);
  try {
    for (const file of files) {
      const usersFile = file.mode === OUTPUT_FILE_MODE;
      const before = usersFile ? await regularOrNothing(file.path, file.path) : undefined;
      const { temp, handle } = await openTempBeside(file.path, file.mode ?? FILE_MODE).catch((error: unknown) => {
        // A folder that is missing or a file refuses every file of the set: the error names the one the
        // caller wrote the set for, the last (its sidecars come first), as the person named it.
        if (isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
          throw new FileSystemError(error, files.at(-1)!.path);
        throw fileSystemErrorOf(error, file.path);
      });
      handles.push(handle);
      staged.push({
        temp,
        path: file.path,
        existed: await lstat(file.path).then(
          () => true,
          () => false,
        ),
        usersFile,
      });
      if (before) await keepModeOf(handle, before);
      const { data } = file;
      const written =
        typeof data === 'function'
          ? await writePieces(data(), async (bytes) => void (await writeAll(handle, bytes, file.path, point)))
          : await writeAll(handle, data, file.path, point);
      failPoint('atomic.temp-written');
      await handle.sync();
      failPoint('atomic.temp-synced');
      await expectSize(handle, written, file.path);
    }
    failPoint('atomic.before-rename');
    const publish = async () => {
      // What stands there may have changed while the files were written: a rename never replaces a link or a device.
      for (const { path, usersFile } of staged) if (usersFile) await regularOrNothing(path, path);
      if (staged.length > 1)
        for (const { path, existed } of staged) if (existed) kept.set(path, await keepBeside(path, handles));
      for (const { temp, path, existed } of staged) {
        await rename(temp, path).catch((error: unknown) => {
          // The system names the temp; the file it could not be put in place of is the one to name.
          throw isSystemError(error) ? new FileSystemError(error, path) : error;
        });
        published.push({ path, existed });
        failPoint('atomic.renamed');
      }
    };
    // A set in one folder is published under the folder's lock: another writer's set never interleaves with it.
    const folders = new Set(staged.map(({ path }) => dirname(path)));
    if (staged.length > 1 && folders.size === 1) await withFolderLock([...folders][0]!, publish);
    else await publish();
    for (const dir of new Set(files.map((file) => dirname(file.path)))) await fsyncDir(dir);
  } catch (error) {
    // What this run made is taken back: none of the set stands new without the rest.
    for (const { temp } of staged) await rm(temp, { force: true });
    for (const { path, existed } of published) {
      const old = kept.get(path);
      if (!existed) await rm(path, { force: true });
      else if (old) {
        // Put back; should even that fail, the old file stays under its kept name rather than be removed.
        await rename(old.temp, path).catch(() => undefined);
        kept.delete(path);
      }
    }
    throw isSystemError(error) ? new FileSystemError(error, files[0]?.path ?? '') : error;
  } finally {
    // Once the set stands whole, or what it replaced is back, the files kept are let go.
    for (const { temp } of kept.values()) await rm(temp, { force: true });
    // Synced and their sizes checked: a close has nothing left to lose.
    for (const handle of handles) await handle.close().catch(() => undefined);
  }
  // What a killed write to the same folders left is taken away: a user's folder holds no temps of rxstore's.
  for (const dir of new Set(files.filter((file) => file.mode === OUTPUT_FILE_MODE).map((file) => dirname(file.path))))
    await removeAbandonedTemps(dir);
}

/** A file a set replaces, kept under a temp's name: a second link to it, locked while the set is written. */
interface KeptFile {
  temp: string;
}

/**
 * Keeps the file at `path` under a temp's name beside it (a hard link, locked as a temp is, so that no other
 * writer takes it for one a killed writer left) until the set replacing it stands whole. A file that cannot
 * be kept so (one of another user's in a sticky folder, a file system without links) refuses the set before
 * any of it is published: replacing it could leave the set half new.
 */
async function keepBeside(path: string, handles: FileHandle[]): Promise<KeptFile> {
  const temp = join(dirname(path), `.rxstore-${randomBytes(8).toString('hex')}.tmp`);
  await link(path, temp).catch((error: unknown) => {
    throw isSystemError(error) ? new FileSystemError(error, path) : error;
  });
  const handle = await open(temp, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (handle) {
    handles.push(handle);
    try {
      tryLockHandle(handle, 'exclusive');
    } catch {
      // A file system without locks: the kept file is removed by this call all the same.
    }
  }
  return { temp };
}
