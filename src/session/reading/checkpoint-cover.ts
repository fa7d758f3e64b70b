import { basename, join } from 'node:path';
import * as z from 'zod';
import type { TornTail } from '../../codec/batch.js';
import type { ContentStore } from '../../codec/content-store.js';
import { readLogBatches } from '../../codec/read-log.js';
import { zstd } from '../../codec/zstd/zstd.js';
import { zstdContentSize } from '../../codec/zstd/zstd-frame-end.js';
import { DamagedStoreError, isSessionVerdict, type ErrorData } from '../../errors/index.js';
import { boltValue } from './bolt-value.js';
import { recoveryCacheDamage, recoveryCheckpoint, type Checkpoint } from './recovery-cache.js';
import { resolveBatch } from './resolve-batch.js';
import { TurnLeftOpen } from './turn-left-open.js';
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
  // The turn its projection holds open ('' or absent for none): Reasonix closes it as it opens the session.
  projection: z.looseObject({ CommittedSequence: z.number().int(), TurnID: z.string().optional() }),
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

/** The checkpoint Reasonix opens a session from (`takenCheckpoint`), and what it finds reading on from the anchor. */
export interface TakenCheckpoint {
  cover: CheckpointCover;
  /** The turn Reasonix closes as it opens the session: the checkpoint's, with the batches after the anchor taken in; '' for none. */
  openTurn: string;
  /** A batch after the anchor is under that turn's `turn-finalize` operation already: the one Reasonix writes is refused. */
  openTurnFinalized: boolean;
  /** The last sequence of the log as Reasonix reads it on. */
  lastSequence: number;
  /** The torn tail after the last whole batch, which Reasonix cuts as it opens the session; null when none. */
  tornTail: TornTail | null;
}

/**
 * The checkpoint Reasonix 1.38.11 opens the session from, when there is one it accepts (measured,
 * test/reasonix/reads/checkpoint-covers-damage-matches-reasonix): the storage identity names this session, with a
 * generation, and a log prefix digest that is this log's or none (Reasonix then writes this log's in); the checkpoint
 * (`current`, else `previous`) is of that generation and this storage revision, and its anchor batch reads whole at
 * its offset, with its commit id, operation hash and last sequence, and ends where the checkpoint says; and every
 * batch after it reads whole. Reasonix then reads nothing of the log before the anchor: damage there does not stop
 * it. Undefined when none qualifies: Reasonix reads the whole log. Only a checkpoint anchored after `anchoredAfter`
 * (an offset in the log) is looked at. With the checkpoint, what Reasonix finds as it reads on from the anchor.
 */
export async function takenCheckpoint(
  dir: string,
  id: string,
  checkpoint: Checkpoint,
  content: ContentStore,
  anchoredAfter = -1,
): Promise<TakenCheckpoint | undefined> {
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
      stored.anchorOffset >= stored.logOffset ||
      stored.anchorOffset <= anchoredAfter
    )
      continue;
    const cover: CheckpointCover = {
      checkpoint: checkpoint.path,
      anchorOffset: stored.anchorOffset,
      anchorSequence: stored.anchorFirst,
      logOffset: stored.logOffset,
      sequence: stored.durableSequence,
    };
    const readOn = await readsOnFrom(dir, content, cover, stored);
    if (readOn) return { cover, ...readOn };
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

/**
 * What Reasonix finds as it reads the log on from the checkpoint's anchor to its end: undefined when the anchor
 * batch is not the checkpoint's, or a batch after it does not read whole (Reasonix then reads the whole log).
 */
async function readsOnFrom(
  dir: string,
  content: ContentStore,
  cover: CheckpointCover,
  stored: z.infer<typeof StoredCheckpointSchema>,
): Promise<Omit<TakenCheckpoint, 'cover'> | undefined> {
  const logPath = join(dir, SESSION_FILES.log);
  const turns = new TurnLeftOpen(stored.projection.TurnID ?? '');
  let lastSequence = stored.durableSequence;
  let tornTail: TornTail | null = null;
  let anchor = true;
  try {
    // The log as the codec reads it, each batch's payloads resolved: a torn tail after the anchor is cut as usual.
    for await (const item of readLogBatches(logPath, {
      offset: cover.anchorOffset,
      nextSequence: cover.anchorSequence,
    })) {
      if (item.type === 'torn-tail') {
        tornTail = item.tail;
        continue;
      }
      const { batch } = item;
      await resolveBatch(batch, content, logPath);
      if (anchor) {
        anchor = false;
        if (
          batch.commitId !== stored.anchorCommitId ||
          batch.operationHash !== (stored.anchorHash ?? '') ||
          batch.firstSeq + batch.eventCount - 1 !== stored.durableSequence ||
          batch.end !== stored.logOffset
        )
          return undefined;
        // What the anchor batch did is in the checkpoint's projection.
        continue;
      }
      turns.batch(batch);
      for (const event of batch.events) turns.event(batch, event.kind);
      lastSequence = batch.firstSeq + batch.eventCount - 1;
    }
  } catch (error) {
    // Damage from the anchor on sends Reasonix back to the whole log; anything else is the machine's.
    if (isSessionVerdict(error)) return undefined;
    throw error;
  }
  if (anchor) return undefined;
  const openTurn = turns.open;
  return { openTurn, openTurnFinalized: openTurn !== '' && turns.finalizedInLog(openTurn), lastSequence, tornTail };
}

/** Whether a problem Reasonix would refuse the session for lies in the log before the checkpoint's anchor. */
export function beforeAnchor(data: ErrorData, logPath: string, cover: CheckpointCover): boolean {
  if (data.file === logPath && data.offset !== undefined) return data.offset < cover.anchorOffset;
  return data.sequence !== undefined && data.sequence < cover.anchorSequence;
}

/**
 * The damage a torn tail is when it begins before the anchor of a checkpoint Reasonix takes (`takenCheckpoint`):
 * whole batches follow it, the anchor among them, so what reads as a log cut short there (a frame length or a batch
 * end changed by damage) is damage in the middle of the log. Reasonix, reading on from the checkpoint, neither
 * meets it nor cuts anything (measured, test/reasonix/reads/checkpoint-covers-damage-matches-reasonix). Undefined
 * for a torn tail: without such a checkpoint, Reasonix cuts it as one.
 */
export async function tornTailDamage(
  dir: string,
  tail: TornTail,
  content: ContentStore,
): Promise<DamagedStoreError | undefined> {
  const id = basename(dir);
  const checkpoint = recoveryCheckpoint(dir, id);
  const cover = checkpoint && (await takenCheckpoint(dir, id, checkpoint, content, tail.offset))?.cover;
  if (!cover) return undefined;
  return new DamagedStoreError(
    `decode v4 log at ${tail.offset}: it reads as cut short there (${tail.reason}), yet whole batches follow it (the batch at ${cover.anchorOffset}, which Reasonix's recovery checkpoint goes on from): damage, not a torn tail`,
    { file: join(dir, SESSION_FILES.log), offset: tail.offset },
  );
}
