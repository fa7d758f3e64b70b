import { join } from 'node:path';
import * as z from 'zod';
import { readJsonFile } from '../../session/reading/read-json-file.js';
import { SESSION_FILES } from '../../session/reading/session-files.js';
import { statOrCode } from '../../fs/files-stamp.js';

/**
 * What Reasonix 1.38.11 keeps of a sessions-v4 session in its store's catalog
 * (`<store>/.query-cache/<id>/catalog-metadata.json`, written by any Reasonix run in the workspace), as far as
 * its lookup of a session reads it: the log it was made from, and whether the session holds anything.
 */
const CatalogEntrySchema = z.looseObject({
  version: z.number(),
  codec: z.string(),
  sessionId: z.string(),
  turns: z.number(),
  title: z.string().optional(),
  preview: z.string().optional(),
  logSize: z.number(),
  logModTimeNs: z.number(),
  logIdentity: z.string().optional(),
});

/** The catalog entry's version and codec that Reasonix 1.38.11 writes and reads. */
const CATALOG_VERSION = 5;
const CATALOG_CODEC = 'reasonix.session.linear/v4';

/**
 * Whether `reasonix --resume <id>` passes over the session as empty: Reasonix's catalog holds it, as its log
 * now stands, with no completed turn, no title and no text of the person's; Reasonix then answers `no session
 * matches` (measured with 1.38.11: a session made but never spoken in is found until any Reasonix run in its
 * workspace has written the catalog, and found again once its log changes or the entry is removed). An entry
 * that does not match the log (Reasonix makes it again from the log, and finds the session) does not count,
 * nor does one naming a log identity rxstore cannot check.
 */
export async function passedOverAsEmpty(sessionDir: string, id: string, storeDir: string): Promise<boolean> {
  const entry = await readJsonFile(join(storeDir, '.query-cache', id, 'catalog-metadata.json'), CatalogEntrySchema);
  if (entry.state !== 'ok') return false;
  const { version, codec, sessionId, turns, title, preview, logSize, logModTimeNs, logIdentity } = entry.value;
  if (version !== CATALOG_VERSION || codec !== CATALOG_CODEC || sessionId !== id || logIdentity) return false;
  if (turns !== 0 || title || preview) return false;
  // A log the system will not stat is said by the read of the session, not here.
  const log = statOrCode(join(sessionDir, SESSION_FILES.log));
  // Nanoseconds past 2^53 lose their last digits as a JSON number: the entry's are compared as Go wrote them, rounded alike.
  return typeof log !== 'string' && Number(log.size) === logSize && Number(log.mtimeNs) === logModTimeNs;
}
