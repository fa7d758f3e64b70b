import { join } from 'node:path';
import * as z from 'zod';
import type { ContentStore } from '../../codec/content-store.js';
import { zstd } from '../../codec/zstd/zstd.js';
import { zstdContentSize } from '../../codec/zstd/zstd-frame-end.js';
import { isSessionVerdict, type ErrorData } from '../../errors/index.js';
import { boltValue } from './bolt-value.js';
import { readSessionEvents } from './read-events.js';
import { recoveryCacheDamage, type Checkpoint } from './recovery-cache.js';
import { SESSION_FILES } from './session-files.js';
import { identityPrefixMatches, readStorageIdentity } from './storage-identity.js';

/**
 * A recovery checkpoint as Reasonix 1.38.11 stores it (docs/format.md §9.10): zstd-compressed JSON under
 * `checkpoints/current` and `checkpoints/previous` of `recovery-v1.bolt`. Only what decides whether
 * Reasonix opens the session from it is read; the projection it keeps is Reasonix's own.
 */
const StoredCheckpointSchema = z.looseObject({
  version: z.literal(1),
  sessionId: z.string(),
  storageGeneration: z.string(),
  storageRevision: z.literal(3),
  durableSequence: z.number().int().positive(),
  logOffset: z.number().int().nonnegative(),
  anchorOffset: z.number().int().nonnegative(),
  anchorFirst: z.number().int().positive(),
  anchorCommitId: z.string().min(1),
  anchorHash: z.string().optional(),
  // 1.38.11 writes 6 and uses no other: a checkpoint of another version is rebuilt from the whole log.
  projectionVersion: z.literal(6),
  projection: z.looseObject({ CommittedSequence: z.number().int() }),
});

/** Far above what a checkpoint of a long session decodes to; Reasonix's own decoder stops at 64 MiB. */
const MAX_CHECKPOINT_JSON = 64 * 1024 * 1024;

/**
 * Where Reasonix's recovery checkpoint lets it open a session without reading the log before it: the
 * anchor (the last batch the checkpoint covers) and the end of that batch, where Reasonix reads on.
 */
export interface CheckpointCover {
  /** The checkpoint file, `.recovery-cache/<id>/recovery-v1.bolt`. */
  checkpoint: string;
  /** The anchor batch's offset: Reasonix reads nothing of the log before it. */
  anchorOffset: number;
  /** The first sequence of the anchor batch. */
  anchorSequence: number;
  /** Just past the anchor batch: Reasonix reads on from here. */
  logOffset: number;
  /** The last sequence the checkpoint covers. */
  sequence: number;
}

/** A damaged session Reasonix goes on with from its recovery checkpoint: the checkpoint's cover, and where the log is damaged. */
export interface GoesOnPastDamage extends CheckpointCover {
  /** The offset in the log of the first problem Reasonix passes over; null when it is known by its sequence only. */
  damagedAt: number | null;
}

/** `GoesOnPastDamage` as a cache keeps it: every field checked when it is read back. */
export const GoesOnPastDamageSchema = z.object({
  checkpoint: z.string(),
  anchorOffset: z.number().int().nonnegative(),
  anchorSequence: z.number().int().positive(),
  logOffset: z.number().int().nonnegative(),
  sequence: z.number().int().positive(),
  damagedAt: z.number().int().nonnegative().nullable(),
}) satisfies z.ZodType<GoesOnPastDamage>;

/**
 * The checkpoint Reasonix 1.38.11 opens the session from, when there is one it accepts (measured,
 * test/reasonix/reads/checkpoint-covers-damage-matches-reasonix): the storage identity names this session, with a
 * generation, and a log prefix digest that is this log's or none (Reasonix then writes this log's in); the checkpoint
 * (`current`, else `previous`) is of that generation and this storage revision, and its anchor batch reads whole at
 * its offset, with its commit id, operation hash and last sequence, and ends where the checkpoint says; and every
 * batch after it reads whole. Reasonix then reads nothing of the log before the anchor: damage there does not stop
 * it. Undefined when none qualifies: Reasonix reads the whole log.
 */
export async function checkpointCover(
  dir: string,
  id: string,
  checkpoint: Checkpoint,
  content: ContentStore,
): Promise<CheckpointCover | undefined> {
  const bytes = checkpoint.bytes;
  // A checkpoint Reasonix crashes on, or one it cannot read, is no way past anything.
  if (!bytes || recoveryCacheDamage(checkpoint) !== undefined) return undefined;
  const identity = await readStorageIdentity(dir);
  if (identity.state !== 'ok' || identity.value.sessionId !== id || identity.value.generation.trim() === '')
    return undefined;
  const logPath = join(dir, SESSION_FILES.log);
  if (!(await identityPrefixMatches(identity.value, logPath))) return undefined;
  for (const key of ['current', 'previous']) {
    const stored = storedCheckpoint(boltValue(bytes, 'checkpoints', key));
    if (
      !stored ||
      stored.sessionId !== id ||
      stored.storageGeneration !== identity.value.generation ||
      stored.projection.CommittedSequence !== stored.durableSequence ||
      stored.anchorOffset >= stored.logOffset
    )
      continue;
    const cover: CheckpointCover = {
      checkpoint: checkpoint.path,
      anchorOffset: stored.anchorOffset,
      anchorSequence: stored.anchorFirst,
      logOffset: stored.logOffset,
      sequence: stored.durableSequence,
    };
    if (await readsOnFrom(dir, content, cover, stored)) return cover;
  }
  return undefined;
}

/** The stored checkpoint a bbolt value holds, or undefined when it is none Reasonix would take. */
function storedCheckpoint(value: Buffer | undefined): z.infer<typeof StoredCheckpointSchema> | undefined {
  const size = value && zstdContentSize(value);
  if (!value || size === undefined || size > MAX_CHECKPOINT_JSON) return undefined;
  try {
    const parsed = StoredCheckpointSchema.safeParse(JSON.parse(zstd.decompress(value, size).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Not zstd, or not JSON: Reasonix passes over such a checkpoint.
    return undefined;
  }
}

/** Whether the log reads from the anchor to its end as Reasonix reads it on from a checkpoint. */
async function readsOnFrom(
  dir: string,
  content: ContentStore,
  cover: CheckpointCover,
  stored: z.infer<typeof StoredCheckpointSchema>,
): Promise<boolean> {
  let anchor = true;
  try {
    for await (const item of readSessionEvents(dir, {
      offset: cover.anchorOffset,
      nextSequence: cover.anchorSequence,
      content,
    })) {
      if (item.type === 'torn-tail') continue;
      const { batch } = item.value;
      if (anchor) {
        anchor = false;
        if (
          batch.commitId !== stored.anchorCommitId ||
          batch.operationHash !== (stored.anchorHash ?? '') ||
          batch.firstSeq + batch.eventCount - 1 !== stored.durableSequence ||
          batch.end !== stored.logOffset
        )
          return false;
      }
    }
  } catch (error) {
    // Damage from the anchor on sends Reasonix back to the whole log; anything else is the machine's.
    if (isSessionVerdict(error)) return false;
    throw error;
  }
  return !anchor;
}

/** Whether a problem Reasonix would refuse the session for lies in the log before the checkpoint's anchor. */
export function beforeAnchor(data: ErrorData, logPath: string, cover: CheckpointCover): boolean {
  if (data.file === logPath && data.offset !== undefined) return data.offset < cover.anchorOffset;
  return data.sequence !== undefined && data.sequence < cover.anchorSequence;
}
