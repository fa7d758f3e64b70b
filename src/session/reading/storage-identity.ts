import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { z } from 'zod';

/** `storage.identity.json` (docs/format.md §9.3): binds caches to one physical log. */
export const StorageIdentitySchema = z.looseObject({
  version: z.literal(1),
  sessionId: z.string(),
  generation: z.string(),
  logPrefixDigest: z.string().optional(),
  createdAt: z.string().optional(),
});
export type StorageIdentity = z.infer<typeof StorageIdentitySchema>;

/** SHA-256 of the first min(64, size) bytes of the log; undefined for an empty log (docs/format.md §9.3). */
export async function logPrefixDigest(logPath: string): Promise<string | undefined> {
  const handle = await open(logPath, 'r');
  try {
    const prefix = Buffer.alloc(64);
    const { bytesRead } = await handle.read(prefix, 0, 64, 0);
    return bytesRead === 0 ? undefined : createHash('sha256').update(prefix.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}
