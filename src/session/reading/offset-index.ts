import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { RefusedAsDamagedError } from '../../errors/index.js';
import * as z from 'zod';
import { readRange } from '../../fs/read-range.js';

/** `events.offset-index.json` (docs/format.md §9.4): a disposable seek index, never trusted over the log. */
export const OffsetIndexSchema = z.looseObject({
  codec: z.literal('reasonix.session.offset-index/v1'),
  logSize: z.number().int().nonnegative(),
  logModTimeNs: z.number(),
  logIdentity: z.string(),
  lastSequence: z.number().int().nonnegative(),
  commitCount: z.number().int().nonnegative(),
  entries: z.array(z.object({ firstSequence: z.number().int(), offset: z.number().int() })).nullable(),
});
export type OffsetIndex = z.infer<typeof OffsetIndexSchema>;

const EDGE_BYTES = 4096;

/**
 * The identity an offset index is bound to (docs/format.md §9.4): SHA-256 of `"<size>:<mtimeNanos>:"`, the
 * first min(size, 4096) bytes and the last min(size − 4096, 4096) bytes of the log.
 */
export async function logIdentity(logPath: string): Promise<{ size: number; modTimeNs: bigint; identity: string }> {
  // Without waiting: a FIFO standing where the log belongs must not hang the read; one stat, bigint for the nanoseconds.
  const handle = await open(logPath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile())
      throw new RefusedAsDamagedError('RX_LOG_MISSING', 'events.frames is not a regular file', { file: logPath });
    const size = Number(stats.size);
    const hash = createHash('sha256').update(`${size}:${stats.mtimeNs}:`);
    hash.update(await readRange(handle, 0, Math.min(size, EDGE_BYTES)));
    const tailLength = Math.max(0, Math.min(size - EDGE_BYTES, EDGE_BYTES));
    hash.update(await readRange(handle, size - tailLength, size));
    return { size, modTimeNs: stats.mtimeNs, identity: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}
