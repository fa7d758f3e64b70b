import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DamagedStoreError } from '../errors/index.js';
import { fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { RelocationPlanSchema, type RelocationPlan } from './relocation-plan.js';

/** Where an unfinished relocation is kept: in the state root, beside `projects/`, where no Reasonix store looks. */
export function journalPath(stateRoot: string): string {
  return join(stateRoot, '.rxstore-relocation.json');
}

/** The plan of an unfinished relocation under this state root, validated; undefined when none is. */
export async function readJournal(stateRoot: string): Promise<RelocationPlan | undefined> {
  const path = journalPath(stateRoot);
  const read = readableOrThrow(await readJsonFile(path, RelocationPlanSchema));
  if (read.state === 'missing') return undefined;
  if (read.state === 'invalid')
    throw new DamagedStoreError(
      `${path}: an unfinished relocation's journal that is not valid (${read.reason}); remove it once every session is where it belongs`,
      { file: path },
    );
  return read.value;
}

/** Keeps the plan in the state root before anything moves: a re-run after a crash reads it back. */
export async function writeJournal(stateRoot: string, plan: RelocationPlan): Promise<void> {
  await writeFileAtomic(journalPath(stateRoot), `${JSON.stringify(plan, null, 2)}\n`, { point: 'relocate.journal' });
}

export async function removeJournal(stateRoot: string): Promise<void> {
  await rm(journalPath(stateRoot), { force: true });
  await fsyncDir(stateRoot);
}
