import { join } from 'node:path';
import { goInt, goString, goStruct, goUint } from '../../codec/go-json/go-decode.js';
import { goLiterals, goLiteralFieldsOf } from '../../codec/go-json/go-literals.js';
import { isGoSpace } from '../../codec/go-json/go-space.js';
import { goUtcNanoText } from '../../codec/go-json/go-time.js';
import { statOrCode } from '../../fs/files-stamp.js';
import { readJsonFile } from '../../session/reading/read-json-file.js';
import { SESSION_FILES } from '../../session/reading/session-files.js';

/**
 * What Reasonix 1.38.11 keeps of a sessions-v4 session in its store's catalog
 * (`<store>/.query-cache/<id>/catalog-metadata.json`, written by any Reasonix run in the workspace), read as Go
 * reads it: keys in any case, a missing or null field its zero value, a value of the wrong type the whole entry
 * refused, other keys left.
 */
const CatalogEntryStruct = goStruct(
  {
    version: goInt,
    codec: goString,
    sessionId: goString,
    createdAt: goString,
    sequence: goUint,
    resultSequence: goUint,
    title: goString,
    titleSequence: goUint,
    modelRef: goString,
    modelIdentity: goString,
    turns: goInt,
    preview: goString,
    logSize: goInt,
    logModTimeNs: goInt,
    logIdentity: goString,
  },
  'drop',
);
const ENTRY_LITERALS = goLiteralFieldsOf(CatalogEntryStruct);

/** The catalog entry's version and codec that Reasonix 1.38.11 writes and reads. */
const CATALOG_VERSION = 5;
const CATALOG_CODEC = 'reasonix.session.linear/v4';

/** Where an entry names the session it describes, as its manifest does, and the log it was made from. */
export interface CatalogedSession {
  dir: string;
  id: string;
  storeDir: string;
  /** The manifest's `createdAt`, as written. */
  createdAt: string;
}

/**
 * Whether `reasonix --resume <id>` passes over the session as empty: Reasonix's catalog holds it, as its log
 * now stands, with no completed turn and no title or preview but white space; Reasonix then answers `no session
 * matches` (measured with 1.38.11: a session made but never spoken in is found until any Reasonix run in its
 * workspace has written the catalog, and found again once its log changes or the entry is removed). An entry
 * that does not match the session and its log (Reasonix makes it again from the log, and finds the session)
 * does not count, nor does one naming a log identity rxstore cannot check, or one larger than rxstore reads.
 */
export async function passedOverAsEmpty(session: CatalogedSession): Promise<boolean> {
  const path = join(session.storeDir, '.query-cache', session.id, 'catalog-metadata.json');
  const entry = await readJsonFile(path, CatalogEntryStruct, ENTRY_LITERALS);
  if (entry.state !== 'ok') return false;
  const { version, codec, sessionId, createdAt, turns, title, preview, logSize, logIdentity } = entry.value;
  if (version !== CATALOG_VERSION || codec !== CATALOG_CODEC || sessionId !== session.id || logIdentity) return false;
  if (createdAt === undefined || createdAt !== goUtcNanoText(session.createdAt)) return false;
  if ((turns ?? 0) !== 0 || !isGoSpace(title ?? '') || !isGoSpace(preview ?? '')) return false;
  // A log the system will not stat is said by the read of the session, not here.
  const log = statOrCode(join(session.dir, SESSION_FILES.log));
  if (typeof log === 'string' || BigInt(log.size) !== BigInt(logSize ?? 0)) return false;
  return log.mtimeNs === exactWhole(entry.text, 'logModTimeNs', entry.value.logModTimeNs ?? 0);
}

/**
 * A whole-number field as written: a double holds nanoseconds since 1970 only to about 250 of them, and Go compares
 * every digit. Its last literal in the text, where Go's decoding ends, when the text has one past a double's reach.
 */
function exactWhole(text: string, field: string, value: number): bigint {
  const written = goLiterals(text, ENTRY_LITERALS)
    .filter((found) => found.field.name === field)
    .at(-1)?.literal;
  return BigInt(written ?? value);
}
