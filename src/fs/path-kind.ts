import { stat } from 'node:fs/promises';
import { PathKindError, undefinedIfMissing } from '../errors/index.js';

/**
 * Refuses a path that is to be a folder but stands as a file (or anything but a folder). A
 * missing one passes: it is made. `given` is the path as the user gave it, and the message names it.
 */
export async function checkFolder(path: string, given = path): Promise<void> {
  const there = await stat(path).catch((error: unknown) => undefinedIfMissing(error, path));
  if (there && !there.isDirectory()) throw new PathKindError(`${given}: is a file, a folder is needed`, { file: given });
}

/**
 * Refuses a folder that must already be there (a folder Reasonix is to run from): missing, or
 * anything but a folder. `given` is the path as the user gave it, and the message names it.
 */
export async function checkExistingFolder(path: string, given = path): Promise<void> {
  const there = await stat(path).catch((error: unknown) => undefinedIfMissing(error, path));
  if (!there) throw new PathKindError(`${given}: no such folder`, { file: given });
  if (!there.isDirectory()) throw new PathKindError(`${given}: is a file, a folder is needed`, { file: given });
}

/** Refuses a path that is to be a file but names a folder (a folder there, or `given` ending in a slash). */
export async function checkFile(path: string, given = path): Promise<void> {
  const there = await stat(path).catch((error: unknown) => undefinedIfMissing(error, path));
  if (/[\\/]$/.test(given) || there?.isDirectory()) throw new PathKindError(`${given}: is a folder, a file is needed`, { file: given });
}
