import { mkdirSync } from 'node:fs';

/**
 * Makes a folder and those above it that are missing, as `mkdir -p` does; returns the first one it
 * made, undefined when all were there. Synchronously: Node's asynchronous `mkdir` with `recursive`
 * says a folder it could not make is missing (ENOENT) whatever the system said, so a full disk, or one
 * out of inodes, read as "no such file or directory"; the synchronous one passes on the system's error.
 */
export function makeFolders(path: string, mode: number): string | undefined {
  return mkdirSync(path, { recursive: true, mode });
}
