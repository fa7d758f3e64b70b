import * as z from 'zod';
import { goInt, goPointer, goString, goStruct, goStructValues, goUint } from '../../codec/go-json/go-decode.js';
import { goWritableRfc3339 } from '../../codec/go-json/go-time.js';
import { goLiteralFields } from '../../codec/go-json/go-literals.js';
import { readJsonFile, readJsonFileSync, type JsonFileResult } from './read-json-file.js';

/** `source` of a migrated, forked or imported session (docs/format.md §9.1); every field may be absent. */
export const ManifestSourceSchema = goStruct(
  {
    path: goString,
    size: goInt,
    sha256: goString,
    version: goString,
    legacyHeadId: goString,
  },
  'keep',
);

/**
 * `manifest.json` (docs/format.md §9.1), read as Reasonix 1.38.11 reads it into its Go struct: keys in any
 * case, `null` as the zero value, numbers of the field's type, a `createdAt` Go parses and can write back
 * (Reasonix writes the manifest again when it opens the session). Keys it does not know are ignored by
 * Reasonix and kept here as they are. The fields the store cannot do without are Go's zero values when
 * absent.
 */
const ManifestStruct = goStruct(
  {
    schemaVersion: goInt,
    codec: goString,
    storageRevision: goInt,
    contentRoot: goString,
    sessionId: goString,
    createdAt: goWritableRfc3339,
    writerGeneration: goUint,
    inheritedEventCount: goUint,
    source: goPointer(ManifestSourceSchema),
  },
  'keep',
);
/** `manifest.json` as above, with Go's zero values for the fields the store cannot do without. */
export const ManifestSchema = ManifestStruct.transform((manifest) => {
  const { source, ...rest } = manifest;
  const zeros = {
    schemaVersion: manifest.schemaVersion ?? 0,
    codec: manifest.codec ?? '',
    sessionId: manifest.sessionId ?? '',
  };
  // A nil source is no source.
  return { ...rest, ...zeros, ...(source ? { source } : {}) };
});
/** A session's `manifest.json`. */
export type Manifest = z.infer<typeof ManifestSchema>;

/** The storage revisions Reasonix 1.38.11 opens in place; it writes 3 (docs/format.md §9.1). */
export const OPEN_STORAGE_REVISIONS = [1, 2, 3] as const;
export const WRITE_STORAGE_REVISION = 3;

/** The manifest's integer fields, which Go refuses written as `3.0` or `3e0`, and its time, written with no escape. */
const MANIFEST_LITERALS = goLiteralFields({
  createdAt: 'time',
  schemaVersion: 'int',
  storageRevision: 'int',
  writerGeneration: 'uint64',
  inheritedEventCount: 'uint64',
  'source.size': 'int64',
});

/** A session's `manifest.json` as Reasonix reads it: missing, invalid (with why), unreadable, or its value. */
export function readManifest(path: string): Promise<JsonFileResult<Manifest>> {
  return readJsonFile(path, ManifestSchema, MANIFEST_LITERALS);
}

/** `readManifest`, done before it returns: a caller that keeps little of it reads the next with this one gone. */
export function readManifestSync(path: string): JsonFileResult<Manifest> {
  return readJsonFileSync(path, ManifestSchema, MANIFEST_LITERALS);
}

/** The manifest without the keys Reasonix ignores (kept as they are by `ManifestSchema`), in its source too. */
export function manifestFields(manifest: Manifest): Manifest {
  const { source, ...rest } = manifest;
  const known = goStructValues(rest, ManifestStruct) as Manifest;
  return source ? { ...known, source: goStructValues(source, ManifestSourceSchema) } : known;
}
