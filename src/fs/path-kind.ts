import type { Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { isSystemError, PathKindError, systemErrorInWords, undefinedIfMissing } from '../errors/index.js';

// Every path rxstore writes at is one the user named (`--to`, `--cursor`): a wrong one is said as such
// (`RX_PATH_KIND`, exit 2), naming the path as the user gave it, before anything is read or written.

/** What stands at a path, in words: `a FIFO`, `a device`, `a symbolic link`, … */
export function kindInWords(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFile()) return 'a file';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'a special file';
}

/**
 * Refuses a folder rxstore is to write into. `given` is the path as the user gave it, and every
 * message names it. With `mustExist` (a store `migrate --to` and `salvage --to` add to, the folder
 * of an export or a page) a missing folder is refused: a typo would otherwise make a folder nobody
 * looks in. Without it (a site `view --all --to` writes) the folder itself may be made, but not
 * the folders above it.
 */
export async function checkFolder(path: string, given = path, options: { mustExist?: boolean } = {}): Promise<void> {
  const there = await stat(path).catch((error: unknown) => missingOrRefused(error, path, given));
  if (there?.isDirectory()) return;
  if (there) throw new PathKindError(`${given}: is ${kindInWords(there)}, a folder is needed`, { file: given });
  const entry = await lstat(path).catch((error: unknown) => missingOrRefused(error, path, given));
  // A folder made since the stat (another run writing the same site made it): it is one.
  if (entry?.isDirectory()) return;
  // A symbolic link to nothing: a folder cannot be made there.
  if (entry)
    throw new PathKindError(`${given}: is ${kindInWords(entry)} to nothing, a folder is needed`, { file: given });
  await notAFolderAbove(path, given);
  if (options.mustExist) throw new PathKindError(`${given}: no such folder; create it first`, { file: given });
  await checkParentFolder(path, given);
}

/**
 * Refuses a folder that must already be there (a folder Reasonix is to run from): missing, or
 * anything but a folder. `given` is the path as the user gave it, and the message names it. With
 * `mayBeMissing` (a Reasonix home, which Reasonix makes) only a path of another kind is refused.
 */
export async function checkExistingFolder(
  path: string,
  given = path,
  options: { mayBeMissing?: boolean } = {},
): Promise<void> {
  const there = await stat(path).catch((error: unknown) => missingOrRefused(error, path, given));
  if (!there && options.mayBeMissing) return;
  if (!there) throw new PathKindError(`${given}: no such folder`, { file: given });
  if (!there.isDirectory())
    throw new PathKindError(`${given}: is ${kindInWords(there)}, a folder is needed`, { file: given });
}

/**
 * Refuses a path rxstore is to write as a file (replacing what is there by a rename): a folder,
 * or `given` ending in a slash; anything but a regular file — a symbolic link, a FIFO, a device —
 * whatever `--force` says (a rename would put a file in its place: as root, over `/dev/null`);
 * a path whose folder does not exist. Returns what stands there: a regular file, or nothing.
 */
export async function checkFile(path: string, given = path): Promise<Stats | undefined> {
  const there = await lstat(path).catch((error: unknown) => missingOrRefused(error, path, given));
  if (/[\\/]$/.test(given) || there?.isDirectory())
    throw new PathKindError(`${given}: is a folder, a file is needed`, { file: given });
  if (there && !there.isFile())
    throw new PathKindError(
      `${given}: is ${kindInWords(there)}; rxstore writes only over a regular file, --force or not`,
      { file: given },
    );
  if (!there) await checkParentFolder(path, given);
  return there;
}

/**
 * Undefined for a path that is not there; a name longer than the file system takes is the path the
 * user typed, refused as such (`RX_PATH_KIND`, exit 2); any other system error is the file's, in words.
 */
function missingOrRefused(error: unknown, path: string, given: string): undefined {
  if (isSystemError(error) && error.code === 'ENAMETOOLONG')
    throw new PathKindError(`${given}: ${systemErrorInWords(error)}`, { file: given });
  return undefinedIfMissing(error, path);
}

/** The folder a file is to be written in must be there: rxstore makes no folder a user named by mistake. */
async function checkParentFolder(path: string, given: string): Promise<void> {
  const folder = await stat(dirname(path)).catch((error: unknown) => missingOrRefused(error, dirname(path), given));
  if (folder?.isDirectory()) return;
  await notAFolderAbove(path, given);
  throw new PathKindError(`${given}: no such folder ${dirname(given)}; create it first`, { file: given });
}

/**
 * Refuses a path below something that is not a folder (`afile/x.html`), naming that something as
 * it was given: the nearest of the path's ancestors that stands, when it is not a folder.
 */
async function notAFolderAbove(path: string, given: string): Promise<void> {
  for (let above = dirname(path), named = dirname(given); ; above = dirname(above), named = dirname(named)) {
    const there = await stat(above).catch((error: unknown) => {
      if (isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return undefined;
      // Anything else (permission denied) is for the write itself to say.
      return null;
    });
    if (there === null || there?.isDirectory()) return;
    if (there) throw new PathKindError(`${given}: ${named} is ${kindInWords(there)}, not a folder`, { file: given });
    if (dirname(above) === above) return;
  }
}

/** What a command reads, which nothing it writes may land in: folders (and all below them) and files. */
export interface ReadPaths {
  /** How the message names what is read: `the session /x/y`. */
  name: string;
  dirs: string[];
  files: string[];
}

/**
 * Refuses a path rxstore is to write that lands inside what the same command reads (the session
 * being exported, salvaged, viewed or followed): written over, or written into, a session would
 * no longer be what Reasonix wrote. `kind` says how the path is written: a `file` is replaced by a
 * rename (its own name is never followed), a `folder` is written into (a link to it is followed).
 */
export async function checkOutside(
  path: string,
  given: string,
  kind: 'file' | 'folder',
  reading: ReadPaths,
): Promise<void> {
  const target = kind === 'folder' ? await canonical(path) : join(await canonical(dirname(path)), basename(path));
  const within = (dir: string) => target === dir || target.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
  const dirs = await Promise.all(reading.dirs.map(canonical));
  const files = await Promise.all(
    reading.files.map(async (file) => join(await canonical(dirname(file)), basename(file))),
  );
  if (dirs.some(within) || files.includes(target)) {
    throw new PathKindError(
      `${given}: inside ${reading.name}, which this command reads; rxstore writes nothing there, --force or not`,
      { file: given },
    );
  }
}

/** A path with every link resolved, as far as it stands; the rest of it as it is. */
async function canonical(path: string): Promise<string> {
  const absolute = resolve(path);
  const real = await realpath(absolute).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(await canonical(parent), basename(absolute));
}
