import type { BigIntStats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { filesStamp, lstatOrCode, statOrCode } from '../../fs/files-stamp.js';
import { recoveryCheckpointPath } from '../../session/reading/recovery-cache.js';
import { ownershipLockPath, SESSION_FILES } from '../../session/reading/session-files.js';

/**
 * What stands beside a v4 session's log and decides its verdict with the log untouched: where
 * Reasonix takes its locks and writes the identity (one turned into a directory, a FIFO or a symlink
 * loop, or put right, makes it refuse or open the session), and its recovery checkpoint (removed or
 * rewritten, it decides whether Reasonix goes on past damage). A cache keyed on the session's files
 * (`ls`'s summaries, the search index) holds this too, or it keeps a verdict that is no longer true.
 */
export function usedFilesStamp(sessionDir: string): string {
  const [checkpoint, ...usedFiles] = usedFilesOf(sessionDir);
  const kinds = usedFiles.map((path) => `${entryKind(path)}\0`).join('');
  return kinds + filesStamp([checkpoint!]);
}

/** The files `usedFilesStamp` looks at: the recovery checkpoint, then the locks and the identity. */
export function usedFilesOf(sessionDir: string): string[] {
  return [
    recoveryCheckpointPath(sessionDir, basename(sessionDir)),
    join(sessionDir, SESSION_FILES.writerLock),
    join(sessionDir, SESSION_FILES.identity),
    ownershipLockPath(dirname(sessionDir), basename(sessionDir)),
  ];
}

/**
 * The kind, mode and inode of what stands at `path` and of what it leads to (a symlink followed), or the
 * system's code: no times, so that Reasonix taking a lock or rewriting the identity leaves it as it was.
 */
function entryKind(path: string): string {
  const kind = (stats: BigIntStats | string) => (typeof stats === 'string' ? stats : `${stats.mode}:${stats.ino}`);
  return `${kind(lstatOrCode(path))}>${kind(statOrCode(path))}`;
}
