import { readFile, rm } from 'node:fs/promises';
import { DIR_MODE } from '../fs/atomic-write.js';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { PlannedSession, RelocationPlan, StorePlan } from './relocation-plan.js';
import { copyVerified, fileDigest, moveEntry, present } from './move-entry.js';
import { rewritePathField } from './rewrite-path-field.js';
import { DamagedStoreError } from '../errors/index.js';
import { lstat } from 'node:fs/promises';
import { makeFolders } from '../fs/make-folders.js';

/**
 * Moves a JSONL transcript and its sidecars into the new workspace's JSONL store, the transcript
 * last (a transcript in its new place has its sidecars there), then points its `.jsonl.meta`'s
 * `workspace_root` at the new folder. With `keep` each file is copied (checked) instead.
 */
export async function moveTranscript(plan: RelocationPlan, store: StorePlan, session: PlannedSession): Promise<void> {
  const [oldDir, newDir] = [join(store.fromDir, 'sessions'), join(store.toDir, 'sessions')];
  for (const name of session.files) {
    const [from, to] = [join(oldDir, name), join(newDir, name)];
    if (!(await present(from))) continue;
    if (await present(to)) {
      // Left by a run that stopped: the transcript itself is removed only when the new one has its bytes.
      if (
        !plan.keep &&
        (await lstat(from)).isFile() &&
        (await fileDigest(from)) !== (await fileDigest(to)) &&
        name === `${session.id}.jsonl`
      ) {
        throw new DamagedStoreError(`${to} differs from ${from}: both are kept; move one aside, then relocate again`, {
          file: to,
        });
      }
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
