import { lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isSystemError } from '../errors/index.js';

/**
 * Makes a folder and those above it that are missing, as `mkdir -p` does; returns the first one it
 * made, undefined when all were there. Synchronously: Node's asynchronous `mkdir` with `recursive`
 * says a folder it could not make is missing (ENOENT) whatever the system said, so a full disk, or one
 * out of inodes, read as "no such file or directory"; the synchronous one passes on the system's error.
 * That error names the first folder that could not be made, where Node names the one asked for.
 */
export function makeFolders(path: string, mode: number): string | undefined {
  try {
    return mkdirSync(path, { recursive: true, mode });
  } catch (error) {
    if (isSystemError(error) && error.path === path) error.path = firstMissing(path);
    throw error;
  }
}

/** The topmost of `path` and the folders above it that is not there (`path` itself when it stands). */
function firstMissing(path: string): string {
  let missing = path;
  for (let at = path; ; at = dirname(at)) {
    if (stands(at)) return missing;
    missing = at;
    if (dirname(at) === at) return missing;
  }
}

function stands(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    // Only what is not there is looked above; anything else there (a loop of links) stands.
    return !(isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'));
  }
}
