import { z } from 'zod';

/** `source` of a migrated, forked or imported session (docs/format.md §9.1). */
export const ManifestSourceSchema = z.looseObject({
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  version: z.string().optional(),
  legacyHeadId: z.string().optional(),
});

/** `manifest.json` (docs/format.md §9.1). Unknown fields are tolerated, as Reasonix tolerates them on read. */
export const ManifestSchema = z.looseObject({
  schemaVersion: z.number().int(),
  codec: z.string(),
  storageRevision: z.number().int().optional(),
  contentRoot: z.string().optional(),
  sessionId: z.string(),
  createdAt: z.string().optional(),
  writerGeneration: z.number().int().nonnegative().optional(),
  inheritedEventCount: z.number().int().nonnegative().optional(),
  source: ManifestSourceSchema.optional(),
  kind: z.string().optional(),
});
/** A session's `manifest.json`. */
export type Manifest = z.infer<typeof ManifestSchema>;

/** The storage revisions Reasonix 1.38.11 opens in place; it writes 3 (docs/format.md §9.1). */
export const OPEN_STORAGE_REVISIONS = [1, 2, 3] as const;
export const WRITE_STORAGE_REVISION = 3;
