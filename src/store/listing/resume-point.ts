import { createHash } from 'node:crypto';
import { join } from 'node:path';
import * as z from 'zod';
import { statLine, statOrCode } from '../../fs/files-stamp.js';
import { CursorSchema } from '../../session/cursors/cursor.js';
import { SESSION_FILES } from '../../session/reading/session-files.js';
import { LogTallySchema } from './log-tally.js';
import type { V4Copy } from './session-copy.js';

/**
 * Where listing can go on reading a v4 copy that grew: the cursor after the last batch it read,
 * the tally of those batches, the log file it read (its inode: a log put in its place is read
 * whole; its size: a log that changed without growing past it was rewritten in place and is read
 * whole) and a digest of the manifest and header it was read with (a change there is read whole).
 */
export const ResumePointSchema = z.object({
  cursor: CursorSchema,
  tally: LogTallySchema,
  logInode: z.string(),
  logSize: z.number().int().nonnegative(),
  meta: z.string(),
});
export type ResumePoint = z.infer<typeof ResumePointSchema>;

/**
 * A digest of what a copy's manifest and header said when it was found, but for the manifest's
 * `writerGeneration`, which Reasonix raises each time it opens the session to append.
 */
export function metaDigest(copy: V4Copy): string {
  const hash = createHash('sha256');
  const { manifest, header } = copy;
  if (manifest.state === 'ok') {
    const { writerGeneration: _, ...rest } = manifest.value;
    hash.update(`ok\0${JSON.stringify(rest)}\0`);
  } else hash.update(`${manifest.state}\0`);
  hash.update(header.state === 'ok' ? `ok\0${header.text}\0` : `${header.state}\0`);
  return hash.digest('hex');
}

/** The log's inode, size and `statLine`: equal before and after a read, nothing changed it meanwhile. */
export function logStamp(copy: V4Copy): { inode: string; stamp: string; size: number } | undefined {
  const log = join(copy.path, SESSION_FILES.log);
  const stats = statOrCode(log);
  return typeof stats === 'string'
    ? undefined
    : { inode: `${stats.dev}:${stats.ino}`, stamp: statLine(log, stats), size: Number(stats.size) };
}
