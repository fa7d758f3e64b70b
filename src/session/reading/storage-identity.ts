import * as z from 'zod';
import { sha256OfRange } from '../../fs/read-range.js';

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
export function logPrefixDigest(logPath: string): Promise<string | undefined> {
  return sha256OfRange(logPath, 0, 64);
}
