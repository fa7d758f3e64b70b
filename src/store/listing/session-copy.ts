import * as z from 'zod';
import type { Header } from '../../session/reading/header.js';
import type { Manifest } from '../../session/reading/manifest.js';
import type { JsonFileResult } from '../../session/reading/read-json-file.js';
import type { JsonlMeta } from '../jsonl/jsonl-meta.js';
import type { StoreLocation } from '../roots/store-location.js';
import type { ListedStore } from '../roots/store-kind.js';

/**
 * One copy of a session as found on disk, with what its metadata files say (read without opening
 * its log). A conversation may have several: a JSONL transcript, its migrated v4 twin, a desktop
 * import (docs/format.md §10, §12).
 */
export interface CopyFacts extends Omit<StoreLocation, 'layout'> {
  /** The session id: the directory name (v4) or the file name without `.jsonl` (docs/format.md §11.1). */
  id: string;
  store: ListedStore;
  /** The session directory (v4) or transcript file (JSONL). */
  path: string;
  /** The state or legacy root it was found under. */
  root: string;
  /** When it last changed: the log's mtime (v4), the meta's `updated_at` (JSONL), else the file's mtime. */
  updatedAt: string | null;
}

/** A copy in a sessions-v4 or desktop store. */
export interface V4Copy extends CopyFacts {
  format: 'v4';
  /**
   * What a stat said of the log when the copy was found, beside its manifest and header
   * (`statLine`); undefined when it could not be looked at. The summary cache keys on it.
   */
  logStatLine: string | undefined;
  /** The log's size by that stat; undefined with no stat. */
  logSize: number | undefined;
  /**
   * The manifest and header as found, with only the fields Reasonix reads; `text` is a SHA-256 of
   * the file's text, not the text: a listing holds every copy's until it is done.
   */
  manifest: JsonFileResult<Manifest>;
  header: JsonFileResult<Header>;
}

/** A copy as a JSONL transcript. */
export interface JsonlCopy extends CopyFacts {
  format: 'jsonl';
  meta: JsonFileResult<JsonlMeta>;
}

/** A v0.x transcript: message-format `<name>.jsonl` with `<name>.meta.json` beside it (docs/format.md §11.4). */
export interface V0Copy extends CopyFacts {
  format: 'v0';
  meta: JsonFileResult<V0Meta>;
}

/** One copy of a conversation in one store. */
export type SessionCopy = V4Copy | JsonlCopy | V0Copy;

/** `<name>.meta.json` beside a v0.x (TypeScript Reasonix) transcript (docs/format.md §11.4). */
export const V0MetaSchema = z.looseObject({
  workspace: z.string().optional(),
  summary: z.string().optional(),
});
/** The metadata of a v0.x session: what the schema above reads (other keys are kept as they are). */
export interface V0Meta {
  workspace?: string | undefined;
  summary?: string | undefined;
  [key: string]: unknown;
}
