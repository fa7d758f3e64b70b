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

/** The moves recorded under a state root; none when the file is missing or is not one rxstore wrote. */
async function recordedMoves(stateRoot: string): Promise<RelocationRecord['moves'] | undefined> {
  const read = readableOrThrow(await readJsonFile(recordPath(stateRoot), RelocationRecordSchema));
  if (read.state === 'invalid') return undefined;
  return read.state === 'missing' ? [] : read.value.moves;
}

/**
 * Adds a finished relocation to the state root's record. A file in its place that is not a record is
 * left as it is (the move is done all the same: only a later run again cannot tell it finished).
 */
export async function recordRelocation(stateRoot: string, plan: RelocationPlan, finishedAt: Date): Promise<void> {
  // Read, added to and written under rxstore's lock: two relocations finishing at once both stay recorded.
  await withStoreLock(stateRoot, async () => {
    const moves = await recordedMoves(stateRoot);
    if (moves === undefined) return;
    moves.push({ from: plan.from, to: plan.to, session: plan.session, finishedAt: finishedAt.toISOString() });
    const record: RelocationRecord = { version: 1, moves: moves.slice(-MOVES_KEPT) };
    await writeFileAtomic(recordPath(stateRoot), `${JSON.stringify(record, null, 2)}\n`, { point: 'relocate.record' });
  });
}

/**
 * When a relocation of `from` to `to` finished under one of these roots (of every session or of one: either
 * proves `from` the folder the project was in); undefined when none is recorded.
 */
export async function finishedBefore(
  stateRoots: readonly string[],
  plan: Pick<RelocationPlan, 'from' | 'to'>,
  platform: Platform,
): Promise<string | undefined> {
  for (const stateRoot of stateRoots) {
    const moves = (await recordedMoves(stateRoot)) ?? [];
    const found = moves.findLast(
      (move) => sameFolder(move.from, plan.from, platform) && sameFolder(move.to, plan.to, platform),
    );
    if (found) return found.finishedAt;
  }
  return undefined;
}
