import { statSync } from 'node:fs';

/**
 * Whether something stands at `path`, told by a stat that makes no error when nothing is there
 * (synchronous, as metadata reads are: microseconds). A missing file is the common answer for an
 * optional lock or metadata file, and a failed open would build an error object for it. Any doubt
 * (ENOTDIR, EACCES, …) says yes: the open that follows decides as it always did.
 */
export function mayExist(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // ENOTDIR, EACCES, …: left to the open that follows.
    return true;
  }
}
