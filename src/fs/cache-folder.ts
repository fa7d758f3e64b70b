import { accessSync, constants, lstatSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { FileSystemError, fileSystemErrorOf, isSystemError, NotRegularFileError } from '../errors/index.js';
import { DIR_MODE } from './file-modes.js';
import { kindInWords } from './path-kind.js';
import { makeFolders } from './make-folders.js';

// The folders rxstore keeps its caches in (the summary cache's, the search index's) are its own to
// make, but what stands in their way is the user's: it is named as it is, and never replaced.

/**
 * Makes a cache folder, and those above it. One the system will not let be written is said by the
 * system's code, naming the folder; anything else in the way (a file, a symbolic link to nothing, a
 * loop of them), at the folder or above it, is refused by what it is and where it stands, and left
 * as it is. `keeps` says what the folder is for: `the index`, `the cache`.
 */
export function makeCacheFolder(folder: string, keeps: string): void {
  try {
    makeFolders(folder, DIR_MODE);
  } catch (error) {
    // Permission denied, no space left, an I/O error: the system's, of the folder it could not make.
    if (!isSystemError(error) || !IN_THE_WAY.has(error.code ?? '')) throw fileSystemErrorOf(error, folder);
    const path = inTheWay(folder) ?? error.path ?? folder;
    throw new NotRegularFileError(
      `${path} is ${standingAt(path)}, not a folder ${keeps} can be kept in; it is left as it is`,
      { file: path },
    );
  }
}

/** What mkdir says when something other than a folder stands where one is to be, or above it. */
const IN_THE_WAY = new Set(['EEXIST', 'ENOTDIR', 'ELOOP', 'ENOENT']);

/**
 * A file's write in a cache folder that the system refused (`writeFileAtomic`'s `FileSystemError`): the
 * folder's, when the folder is what may not be written (its permissions, a read-only system), so that one
 * line names it for every file; else the error as it is.
 */
export function refusedWriteIn(error: unknown, file: string): unknown {
  if (!(error instanceof FileSystemError) || !['EACCES', 'EPERM', 'EROFS'].includes(error.data.errno ?? ''))
    return fileSystemErrorOf(error, file);
  try {
    accessSync(dirname(file), constants.W_OK);
  } catch (denied) {
    return fileSystemErrorOf(denied, dirname(file));
  }
  return error;
}

/** The nearest of `folder` and the paths above it that stands and is not a folder (nor a link to one). */
function inTheWay(folder: string): string | undefined {
  for (let path = folder; ; path = dirname(path)) {
    const entry = entryAt(path);
    if (entry !== undefined) return entry.isDirectory() || leadsToFolder(path) ? undefined : path;
    if (dirname(path) === path) return undefined;
  }
}

function leadsToFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // A link to nothing, or a loop of them: in the way, as any other thing that is not a folder.
    return false;
  }
}

/** What `lstat` says of a path; undefined when it is not there, or cannot be reached (below a file, or through a loop of links). */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What stands at `path`, in words, a symbolic link with what it leads to. */
function standingAt(path: string): string {
  const entry = entryAt(path);
  if (entry === undefined) return 'not there';
  if (!entry.isSymbolicLink()) return kindInWords(entry);
  try {
    return `a symbolic link to ${kindInWords(statSync(path))}`;
  } catch (error) {
    return isSystemError(error) && error.code === 'ELOOP' ? 'a loop of symbolic links' : 'a symbolic link to nothing';
  }
}
