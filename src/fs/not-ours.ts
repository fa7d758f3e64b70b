import { kindInWords } from './path-kind.js';
import { lstatOrUndefined } from './stat-or-undefined.js';

/**
 * What stands at a name of rxstore's own (a cache file, the search index and its journal, a lock)
 * when rxstore cannot have made it, in words; undefined when nothing is there or a file rxstore may
 * have written: a regular file of one name. A FIFO, a link, a folder, or a file with another name
 * too (a hard link, which a rename would part from its other name, and a write would change under
 * it), is not. Any other system error as a `FileSystemError`.
 */
export function notOurs(path: string): string | undefined {
  const there = lstatOrUndefined(path);
  if (there === undefined || (there.isFile() && there.nlink === 1)) return undefined;
  return there.isFile() ? `a file with ${there.nlink} names (a hard link)` : kindInWords(there);
}
