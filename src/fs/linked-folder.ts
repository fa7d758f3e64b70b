import { join } from 'node:path';
import { lstatOrUndefined } from './stat-or-undefined.js';

/**
 * The first folder below `base`, on the way to `base/parts…`, that is a symbolic link; undefined when
 * none is (or the way ends, a name missing, before one). A store's caches and sidecars are Reasonix's
 * own folders: a link among them leads out of the store, and removing or moving through it would
 * touch files rxstore never wrote. The last part itself is not looked at: a link there is removed or
 * moved as a link, its target untouched.
 */
export function linkedFolderOnTheWay(base: string, ...parts: string[]): string | undefined {
  let path = base;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    const there = lstatOrUndefined(path);
    if (there === undefined) return undefined;
    if (there.isSymbolicLink()) return path;
  }
  return undefined;
}
