import { createHash } from 'node:crypto';
import { lstatSync, statSync, type BigIntStats } from 'node:fs';
import { isSystemError } from '../errors/index.js';

/**
 * What a `stat` says of one file, as a stamp is made of: size, modification and change times in
 * nanoseconds, device, inode. Equal only while the file was not written, replaced or removed: a file
 * rewritten in place has a new change time, which no one can set back, and one put in its place a
 * new inode.
 */
export function statLine(path: string, stats: BigIntStats): string {
  return `${path}\0${stampFields(stats).join('\0')}\n`;
}

/**
 * What a `stat` says of one file, as one printable string (the fields `statLine` holds, but the
 * path): kept beside what was read of the file, it tells later whether the file may have changed
 * since, for the cost of a stat.
 */
export function fileStamp(stats: BigIntStats): string {
  return stampFields(stats).join(':');
}

function stampFields(stats: BigIntStats): bigint[] {
  return [stats.size, stats.mtimeNs, stats.ctimeNs, stats.dev, stats.ino];
}

/**
 * The stat of `path`, or the system's code when there is none (`ENOENT`; EACCES, ENOTDIR, …: not
 * to be looked at). Synchronous, as metadata looks are here: a warm listing stats a few files per
 * session, and the promise API's round trips cost more than the stats.
 */
export function statOrCode(path: string): BigIntStats | string {
  return orCode(() => statSync(path, { bigint: true, throwIfNoEntry: false }));
}

/** `statOrCode` of the entry itself: a symlink is not followed. */
export function lstatOrCode(path: string): BigIntStats | string {
  return orCode(() => lstatSync(path, { bigint: true, throwIfNoEntry: false }));
}

function orCode(look: () => BigIntStats | undefined): BigIntStats | string {
  try {
    return look() ?? 'ENOENT';
  } catch (error) {
    if (!isSystemError(error)) throw error;
    return error.code ?? 'error';
  }
}

/**
 * A digest of what a stat says of each file (`statLine`, or that it is not there): equal only while
 * none of them was written, replaced or removed.
 */
export function filesStamp(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) {
    const stats = statOrCode(path);
    hash.update(typeof stats === 'string' ? `${path}\0${stats}\n` : statLine(path, stats));
  }
  return hash.digest('hex');
}

/**
 * `filesStamp` of files read from `readFrom` on (the wall clock in nanoseconds, taken before the
 * first read), or undefined when one of them changed since then: its stat may already say what was
 * not read, so the stamp would vouch for a read that is out of date (git's "racy" entries). A
 * second's margin covers the coarse clock file systems stamp times with.
 */
export function settledFilesStamp(paths: readonly string[], readFrom: bigint): string | undefined {
  const hash = createHash('sha256');
  const settled = readFrom - 1_000_000_000n;
  for (const path of paths) {
    const stats = statOrCode(path);
    if (typeof stats !== 'string' && (stats.ctimeNs >= settled || stats.mtimeNs >= settled)) return undefined;
    hash.update(typeof stats === 'string' ? `${path}\0${stats}\n` : statLine(path, stats));
  }
  return hash.digest('hex');
}
