import { readdir, readFile, rm } from 'node:fs/promises';
import { DIR_MODE } from '../fs/atomic-write.js';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { PlannedSession, RelocationPlan, StorePlan } from './relocation-plan.js';
import { copyVerified, fileDigest, moveEntry, present } from './move-entry.js';
import { rewritePathField } from './rewrite-path-field.js';
import { DamagedStoreError } from '../errors/index.js';
import { lstat } from 'node:fs/promises';
import { makeFolders } from '../fs/make-folders.js';

/** Whether two files hold the same bytes, or two folders the same files (by name and bytes), links not followed. */
async function sameEntry(a: string, b: string): Promise<boolean> {
  const [one, two] = [await lstat(a), await lstat(b)];
  if (one.isFile() && two.isFile()) return (await fileDigest(a)) === (await fileDigest(b));
  if (!one.isDirectory() || !two.isDirectory()) return false;
  const [names, others] = [await readdir(a), await readdir(b)];
  if (names.length !== others.length) return false;
  for (const name of names)
    if (!others.includes(name) || !(await sameEntry(join(a, name), join(b, name)))) return false;
  return true;
}

/**
 * Moves a JSONL transcript and its sidecars into the new workspace's JSONL store, the transcript
 * last (a transcript in its new place has its sidecars there), then points its `.jsonl.meta`'s
 * `workspace_root` at the new folder. With `keep` each file is copied (checked) instead.
 */
export async function moveTranscript(plan: RelocationPlan, store: StorePlan, session: PlannedSession): Promise<void> {
  const [oldDir, newDir] = [join(store.fromDir, 'sessions'), join(store.toDir, 'sessions')];
  // A file in both places is the same bytes (a move that stopped between its copy and its removal), or the
  // new workspace's own: refused before anything moves, both kept.
  for (const name of session.files) {
    const [from, to] = [join(oldDir, name), join(newDir, name)];
    if (!plan.keep && (await present(from)) && (await present(to)) && !(await sameEntry(from, to)))
      throw new DamagedStoreError(`${to} differs from ${from}: both are kept; move one aside, then relocate again`, {
        file: to,
      });
  }
  for (const name of session.files) {
    const [from, to] = [join(oldDir, name), join(newDir, name)];
    if (!(await present(from))) continue;
    if (await present(to)) {
      if (!plan.keep) await rm(from, { recursive: true, force: true });
      continue;
    }
    if (plan.keep) {
      makeFolders(newDir, DIR_MODE);
      await copyVerified(from, to);
    } else await moveEntry(from, to, 'relocate.transcript-file-moved');
  }
  if (!(await present(join(newDir, `${session.id}.jsonl`))))
    throw new DamagedStoreError(`transcript ${session.id} is in neither ${oldDir} nor ${newDir}`, {
      file: join(oldDir, `${session.id}.jsonl`),
    });
  const meta = join(newDir, `${session.id}.jsonl.meta`);
  const text = await readFile(meta, 'utf8').catch(() => undefined);
  const rewritten =
    text === undefined ? undefined : rewritePathField(text, 'workspace_root', plan.from, plan.to, plan.platform);
  if (rewritten !== undefined) await writeFileAtomic(meta, rewritten, { point: 'relocate.meta' });
}
