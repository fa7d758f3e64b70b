import { join } from 'node:path';
import { mayExist } from '../../fs/may-exist.js';
import { identityPrefixMatches, readStorageIdentity } from './storage-identity.js';
import { SESSION_FILES } from './session-files.js';
import { boltDamage } from './bolt-damage.js';
import { boltValue } from './bolt-value.js';
import { readRegularFile } from '../../fs/read-regular-file.js';
import { statSync } from 'node:fs';

/** The recovery cache of a session, when it records more of the log than the log holds, and what it holds. */
export interface RecoveryCacheAhead {
  cache: string;
  /** What the cache holds that the log does not, in words. */
  holds: string;
}

/** Where Reasonix keeps the recovery cache of the session in `sessionDir` (docs/format.md §9.9). */
export function recoveryCacheDir(sessionDir: string, id: string): string {
  return join(sessionDir, '..', '.recovery-cache', id);
}

/**
 * Whether Reasonix's recovery cache of the session holds an operation its log no longer does that Reasonix
 * writes again when it next goes on with the session: the log was cut, or an older copy of the session put
 * back, while the cache stayed. Reasonix trusts the cache while the storage identity still matches the log
 * (the same session, the same first bytes), and keeps in its checkpoint's `operations` bucket every
 * operation it wrote, by id; a new batch under an id held there with other bytes is refused (`session
 * operation id conflicts with an earlier batch`). The first such batches are known from the log alone: the
 * end of the turn Reasonix holds open (`openTurn`: `turn-finalize:<turn>`), else the next turn's admission of the
 * typed message (`messages:turn-admission:<sequence>`, two past the log's last: its start comes first). A
 * cache that is only ahead of the log, with neither, is no refusal: Reasonix goes on, and writes past it.
 * Measured with 1.38.11 (test/reasonix/reads/recovery-cache-matches-reasonix). Undefined when there is no
 * such cache, or it holds neither.
 */
export async function recoveryCacheAhead(
  sessionDir: string,
  id: string,
  checkpoint: Checkpoint,
  lastSequence: number,
  openTurn: string,
): Promise<RecoveryCacheAhead | undefined> {
  const cache = recoveryCacheDir(sessionDir, id);
  const bytes = checkpoint.bytes;
  // A cache this user may not read is not one rxstore can judge.
  if (!bytes) return undefined;
  const next = openTurn !== '' ? `turn-finalize:${openTurn}` : `messages:turn-admission:${lastSequence + 2}`;
  if (boltValue(bytes, 'operations', next) === undefined) return undefined;
  // The checkpoint keeps the generation it was written under; an identity of another one (missing, stale, or
  // minted anew, as Reasonix mints one where the identity is not this session's or log's) empties its buckets as
  // Reasonix opens it. One that keeps none is taken under any (`recent-v1.json` plays no part: measured).
  const written = boltValue(bytes, 'meta', 'storage_generation')?.toString('utf8') ?? '';
  if (written !== '' && !(await writtenUnderIdentity(sessionDir, id, written))) return undefined;
  const writes = openTurn !== '' ? 'that ends a turn this log leaves open' : 'that admits the next turn';
  return {
    cache,
    holds: `the operation ${JSON.stringify(next)} ${writes}, which this log (to sequence ${lastSequence}) does not hold`,
  };
}

/** Whether the session's storage identity is one Reasonix keeps (this session's, of this log) and of `generation`. */
async function writtenUnderIdentity(sessionDir: string, id: string, generation: string): Promise<boolean> {
  const identity = await readStorageIdentity(sessionDir);
  return (
    identity.state === 'ok' &&
    identity.value.sessionId === id &&
    identity.value.generation === generation &&
    (await identityPrefixMatches(identity.value, join(sessionDir, SESSION_FILES.log)))
  );
}

/** The refusals of a session that `rxstore repair` answers by clearing the caches (Reasonix rebuilds them from the log). */
export const CACHE_REFUSALS: ReadonlySet<string> = new Set([
  'RX_RECOVERY_CACHE_AHEAD',
  'RX_RECOVERY_CACHE_DAMAGED',
  'RX_QUERY_CACHE_BLOCKED',
]);

/** The files of Reasonix's query cache of the session it reads when it opens the session (measured with 1.38.11). */
export function queryCacheFiles(sessionDir: string, id: string): string[] {
  return [join(sessionDir, '..', '.query-cache', id, 'catalog-metadata.json')];
}

/** The checkpoint of a session's recovery cache: where it is, and its bytes when it is a regular file this user may read. */
export interface Checkpoint {
  path: string;
  bytes: Buffer | undefined;
  /** Its size, when it is a regular file larger than rxstore reads (`MAX_CHECKPOINT_BYTES`): not read, not judged. */
  tooLarge?: number;
}

/** Far above the few megabytes a checkpoint holds: a larger file is not read into memory, and said so (RX_TOO_LARGE). */
export const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** Where the checkpoint of the session's recovery cache is (docs/format.md §9.9). */
export function recoveryCheckpointPath(sessionDir: string, id: string): string {
  return join(recoveryCacheDir(sessionDir, id), 'recovery-v1.bolt');
}

/**
 * The checkpoint of the session's recovery cache (`recovery-v1.bolt`, a bbolt database of at most a few
 * megabytes), read once for every check of it; undefined when there is none: without it Reasonix does not
 * use the cache. A checkpoint that is no regular file has no bytes (Reasonix sets it aside as
 * `.corrupt-<time>` and makes it again), nor does one this user may not read.
 */
export function recoveryCheckpoint(sessionDir: string, id: string): Checkpoint | undefined {
  const path = recoveryCheckpointPath(sessionDir, id);
  if (!mayExist(path)) return undefined;
  const bytes = readRegularFile(path, MAX_CHECKPOINT_BYTES);
  if (bytes !== undefined) return { path, bytes };
  // Not read: no regular file, one this user may not read, or one over the bound, which is said.
  const stats = (() => {
    try {
      return statSync(path, { throwIfNoEntry: false });
    } catch {
      // Not one this user may look at: nothing to say of its size.
      return undefined;
    }
  })();
  const size = stats?.isFile() ? stats.size : undefined;
  return size !== undefined && size > MAX_CHECKPOINT_BYTES
    ? { path, bytes: undefined, tooLarge: size }
    : { path, bytes: undefined };
}

/**
 * Why the checkpoint is one Reasonix crashes on, if it is: a page its database reaches is not what it
 * should be (`boltDamage`). Reasonix opens the checkpoint whatever else the cache holds, and discards one
 * that is no bbolt database at all. Undefined when it is sound, or has no bytes to judge.
 */
export function recoveryCacheDamage(checkpoint: Checkpoint): string | undefined {
  return checkpoint.bytes && boltDamage(checkpoint.bytes);
}
