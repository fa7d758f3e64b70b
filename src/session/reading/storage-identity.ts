import { join } from 'node:path';
import * as z from 'zod';
import { goInt, goString, goStruct } from '../../codec/go-json/go-decode.js';
import { goLiteralFieldsOf } from '../../codec/go-json/go-literals.js';
import { goRfc3339 } from '../../codec/go-json/go-time.js';
import { sha256OfRange } from '../../fs/read-range.js';
import { readJsonFile, type JsonFileResult } from './read-json-file.js';
import { SESSION_FILES } from './session-files.js';

/** `storage.identity.json` as Go decodes it: keys in any case, `null` as the zero value, a time Go parses as written. */
const StorageIdentityStruct = goStruct(
  { version: goInt, sessionId: goString, generation: goString, logPrefixDigest: goString, createdAt: goRfc3339 },
  'keep',
);

/**
 * `storage.identity.json` (docs/format.md §9.3): binds caches to one physical log. Read as Reasonix 1.38.11 reads
 * it (test/reasonix/reads/storage-identity-matches-reasonix): one Go cannot decode (a time that is not RFC 3339 as
 * written, a version written `1.0`) is no identity, and Reasonix mints a new one; keys in another case and `null`
 * are decoded as Go decodes them.
 */
export const StorageIdentitySchema = StorageIdentityStruct.pipe(
  z.looseObject({
    version: z.literal(1),
    sessionId: z.string().default(''),
    generation: z.string().default(''),
    logPrefixDigest: z.string().optional(),
    createdAt: z.string().optional(),
  }),
);
export type StorageIdentity = z.infer<typeof StorageIdentitySchema>;

const IDENTITY_LITERALS = goLiteralFieldsOf(StorageIdentityStruct);

/** A session's storage identity as Reasonix reads it: missing, invalid (with why), unreadable, or its value. */
export function readStorageIdentity(sessionDir: string): Promise<JsonFileResult<StorageIdentity>> {
  return readJsonFile(join(sessionDir, SESSION_FILES.identity), StorageIdentitySchema, IDENTITY_LITERALS);
}

/** SHA-256 of the first min(64, size) bytes of the log; undefined for an empty log (docs/format.md §9.3). */
export function logPrefixDigest(logPath: string): Promise<string | undefined> {
  return sha256OfRange(logPath, 0, 64);
}

/**
 * Whether an identity's log prefix is this log's, as Reasonix tells it: an identity that records none (missing,
 * `null` or empty) names no other log, and Reasonix keeps its caches.
 */
export async function identityPrefixMatches(identity: StorageIdentity, logPath: string): Promise<boolean> {
  const prefix = identity.logPrefixDigest;
  return prefix === undefined || prefix === '' || prefix === (await logPrefixDigest(logPath));
}
