import * as z from 'zod';
import { CursorMismatchError } from '../../errors/index.js';
import { firstIssue } from '../../codec/first-issue.js';
import { RecordsCursorSchema } from '../../session/cursors/records-since.js';
import type { ListedStore } from '../roots/store-kind.js';

/** At most this many sessions in one checkpoint: a bound on what is read back, far past any machine's count. */
export const MAX_CHECKPOINT_SESSIONS = 100_000;

/**
 * Where an index stands for one session: the copy it was read from and how far. A log copy keeps
 * its records cursor (some 1 KB for a short session, within 80 KiB however long its log); a
 * transcript, read whole, the stamp of its files when it was.
 */
const StoreSchema = z.enum(['desktop-sessions-v5', 'sessions-v4', 'jsonl', 'legacy']) satisfies z.ZodType<ListedStore>;
const CopySchema = z.object({ path: z.string().min(1), id: z.string().min(1), store: StoreSchema });
const CheckpointEntrySchema = z.union([
  CopySchema.extend({ cursor: RecordsCursorSchema }),
  CopySchema.extend({ stamp: z.string().regex(/^[0-9a-f]{64}$/) }),
]);
export type CheckpointEntry = z.infer<typeof CheckpointEntrySchema>;

/**
 * Where an index of every session under some roots stands: one entry per session read, by its
 * copy's path. Plain JSON; validated when it is given back (`indexSince`), its size bounded by
 * its sessions (at most `MAX_CHECKPOINT_SESSIONS`, each entry bounded as its cursor is).
 */
export const IndexCheckpointSchema = z.object({
  version: z.literal(1),
  sessions: z.array(CheckpointEntrySchema).max(MAX_CHECKPOINT_SESSIONS),
});
/** A checkpoint of `indexSince`: store it as JSON, give it back to the next run. */
export type IndexCheckpoint = z.infer<typeof IndexCheckpointSchema>;

/** The checkpoint given back, validated; none (undefined) starts from nothing. A checkpoint rxstore did not make is `CursorMismatchError`. */
export function parseIndexCheckpoint(given: unknown): IndexCheckpoint {
  if (given === undefined) return { version: 1, sessions: [] };
  const parsed = IndexCheckpointSchema.safeParse(given);
  if (!parsed.success)
    throw new CursorMismatchError(
      `not an index checkpoint rxstore made: ${firstIssue(parsed.error)}; index again from no checkpoint`,
      {},
    );
  return parsed.data;
}
