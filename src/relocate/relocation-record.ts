import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withStoreLock } from '../fs/store-lock.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import type { Platform } from '../store/roots/platform.js';
import type { RelocationPlan } from './relocation-plan.js';
import { sameFolder } from './workspace-folder.js';

/**
 * Relocations that finished under a state root, newest last: once the old slug's folder is gone, a
 * run again of a finished move and a mistyped old folder look alike, and only this tells them apart.
 */
export const RelocationRecordSchema = z.strictObject({
  version: z.literal(1),
  moves: z.array(
    z.strictObject({
      from: z.string(),
      to: z.string(),
      /** The one session moved; null when every session under the old slug was. */
      session: z.string().nullable(),
      finishedAt: z.string(),
    }),
  ),
});
export type RelocationRecord = z.infer<typeof RelocationRecordSchema>;

/** Enough for any run again a person makes; older moves are forgotten first. */
const MOVES_KEPT = 100;

/** Beside the journal, in the state root, where no Reasonix store looks. */
export function recordPath(stateRoot: string): string {
  return join(stateRoot, '.rxstore-relocated.json');
}

/** The moves recorded under a state root (none when the file is missing), or why the file there is not a record rxstore wrote. */
async function recordedMoves(
  stateRoot: string,
): Promise<{ moves: RelocationRecord['moves'] } | { notRecord: string; path: string }> {
  const path = recordPath(stateRoot);
  const read = readableOrThrow(await readJsonFile(path, RelocationRecordSchema));
  if (read.state === 'invalid') return { notRecord: `${path} is not a record rxstore wrote (${read.reason})`, path };
  return { moves: read.state === 'missing' ? [] : read.value.moves };
}

/**
 * Adds a finished relocation to the state root's record. A file in its place that is not a record is
 * left as it is, and said: the move is done all the same, only a later run again cannot tell it
 * finished. Returns what was not recorded and why, or undefined.
 */
export async function recordRelocation(
  stateRoot: string,
  plan: RelocationPlan,
  finishedAt: Date,
): Promise<string | undefined> {
  // Read, added to and written under rxstore's lock: two relocations finishing at once both stay recorded.
  return withStoreLock(stateRoot, async () => {
    const recorded = await recordedMoves(stateRoot);
    if ('notRecord' in recorded) return `${recorded.notRecord}: the move is done but not recorded, left as it is`;
    const moves = [
      ...recorded.moves,
      { from: plan.from, to: plan.to, session: plan.session, finishedAt: finishedAt.toISOString() },
    ];
    const record: RelocationRecord = { version: 1, moves: moves.slice(-MOVES_KEPT) };
    await writeFileAtomic(recordPath(stateRoot), `${JSON.stringify(record, null, 2)}\n`, { point: 'relocate.record' });
    return undefined;
  });
}

/** What the state roots' records say of a relocation: when it finished, if one is; and the records that could not be read. */
export interface RecordedRelocation {
  finishedAt?: string;
  /** Record files that are not records rxstore wrote: a move they would hold is not known. */
  unreadable: string[];
}

/**
 * When a relocation of `from` to `to` finished under one of these roots (of every session or of one: either
 * proves `from` the folder the project was in).
 */
export async function finishedBefore(
  stateRoots: readonly string[],
  plan: Pick<RelocationPlan, 'from' | 'to'>,
  platform: Platform,
): Promise<RecordedRelocation> {
  const unreadable: string[] = [];
  for (const stateRoot of stateRoots) {
    const recorded = await recordedMoves(stateRoot);
    if ('notRecord' in recorded) {
      unreadable.push(recorded.path);
      continue;
    }
    const found = chainedMove(recorded.moves, plan, platform);
    if (found) return { finishedAt: found, unreadable };
  }
  return { unreadable };
}

/**
 * When the last move of a chain of recorded moves from `from` to `to` finished (`a` to `b`, then `b` to `to`:
 * the project moved twice, and a run of `a` to `to` finds it done); undefined when no chain leads there.
 */
function chainedMove(
  moves: RelocationRecord['moves'],
  plan: Pick<RelocationPlan, 'from' | 'to'>,
  platform: Platform,
): string | undefined {
  const direct = moves.findLast(
    (move) => sameFolder(move.from, plan.from, platform) && sameFolder(move.to, plan.to, platform),
  );
  if (direct) return direct.finishedAt;
  // Each folder is followed once, along the moves made after the one that reached it: no record loops.
  const reached = new Set<string>();
  const frontier: { folder: string; since: string }[] = [{ folder: plan.from, since: '' }];
  for (let at = 0; at < frontier.length; at += 1) {
    const { folder, since } = frontier[at]!;
    for (const move of moves) {
      if (move.finishedAt < since || !sameFolder(move.from, folder, platform) || reached.has(move.to)) continue;
      if (sameFolder(move.to, plan.to, platform)) return move.finishedAt;
      reached.add(move.to);
      frontier.push({ folder: move.to, since: move.finishedAt });
    }
  }
  return undefined;
}
