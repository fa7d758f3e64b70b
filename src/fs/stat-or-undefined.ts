import { lstatSync, statSync, type Stats } from 'node:fs';
import { undefinedIfMissing } from '../errors/index.js';

// Looked at synchronously, as metadata reads are (microseconds): every read of a session asks this of a
// few files, and through the thread pool those round trips cost a listing of thousands of sessions more
// than reading their logs.

/** What `stat` says of a path (a link followed); undefined when nothing is there; any other system error as a `FileSystemError`. */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    return undefinedIfMissing(error, path);
  }
}

/** What `lstat` says of a path (a link itself); undefined when nothing is there; any other system error as a `FileSystemError`. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    return undefinedIfMissing(error, path);
  }
}
