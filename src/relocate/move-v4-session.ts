import { lstat, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DamagedStoreError } from '../errors/index.js';
import { CONTENT_DIR } from '../codec/content-store.js';
import { fsyncDir, writeFileAtomic } from '../fs/atomic-write.js';
import { failPoint } from '../fs/fail-point.js';
import { acquireWriterLocks } from '../session/reading/writer-locks.js';
import { ownershipLockPath, SESSION_FILES } from '../session/reading/session-files.js';
import { allFiles } from './plan-relocation.js';
import type { PlannedSession, RelocationPlan, StorePlan } from './relocation-plan.js';
import { bringFile, copyVerified, fileDigest, moveEntry, present } from './move-entry.js';
import { rewritePathField } from './rewrite-path-field.js';
import { linkedFolderOnTheWay } from '../fs/linked-folder.js';

/** Caches Reasonix keeps per session beside the store's sessions (docs/format.md §9.9): moved along, so nothing is rebuilt. */
const SESSION_CACHES = ['.recovery-cache', '.query-cache'];

/**
 * Moves one sessions-v4 session into the new workspace's store, each step one a re-run can take
 * again: the content objects it names first (linked or copied), then, under its writer locks so no
 * Reasonix opens it meanwhile, the directory itself by rename (or, with `keep`, a checked copy
 * published by rename), then `header.json`'s `cwd` rewritten in its new place. A session found
 * already moved is only finished.
 */
export async function moveV4Session(plan: RelocationPlan, store: StorePlan, session: PlannedSession): Promise<void> {
  const oldStore = join(store.fromDir, 'sessions-v4');
  const newStore = join(store.toDir, 'sessions-v4');
  const [from, to] = [join(oldStore, session.id), join(newStore, session.id)];
  for (const file of session.content) {
    if (await present(join(oldStore, CONTENT_DIR, file)))
      await bringFile(join(oldStore, CONTENT_DIR, file), join(newStore, CONTENT_DIR, file), store.sameDevice);
  }
  for (const file of session.content) {
    if (!(await present(join(newStore, CONTENT_DIR, file))))
      throw new DamagedStoreError(
        `${join(newStore, CONTENT_DIR, file)}, which session ${session.id} names, is in neither store: the session was not moved`,
        { file: join(oldStore, CONTENT_DIR, file) },
      );
  }
  if (await present(from)) {
    const locks = await acquireWriterLocks(from);
    try {
      if (!(await present(to))) {
        if (plan.keep) await publishCopy(plan, from, to, newStore, session.id);
        else await renameChecked(from, to);
      } else {
        // A copy published by a run that stopped before removing the old one: the same bytes, or nothing is removed.
        await checkSameFiles(from, to);
      }
      await rewriteHeader(plan, to);
      if (!plan.keep) {
        await rm(from, { recursive: true, force: true });
        await fsyncDir(oldStore);
      }
    } finally {
      await locks.release();
    }
    if (!plan.keep) await rm(ownershipLockPath(oldStore, session.id), { force: true });
    failPoint('relocate.session-moved');
  } else {
    if (!(await present(to)))
      throw new DamagedStoreError(`session ${session.id} is in neither ${oldStore} nor ${newStore}`, { file: from });
    await rewriteHeader(plan, to);
  }
  for (const cache of SESSION_CACHES) {
    const [old, now] = [join(oldStore, cache, session.id), join(newStore, cache, session.id)];
    if (!(await present(old))) continue;
    if (plan.keep) continue;
    // A cache folder linked out of a store (planted since the plan) is left as it is: Reasonix rebuilds the cache.
    if (linkedFolderOnTheWay(oldStore, cache, session.id) || linkedFolderOnTheWay(newStore, cache, session.id))
      continue;
    // Across file systems a cache is not worth the space it would take there (Reasonix rebuilds it): only the stale one goes.
    if (!store.sameDevice || (await present(now))) await rm(old, { recursive: true, force: true });
    else await moveEntry(old, now, 'relocate.cache-moved');
  }
}

/** A rename, checked: the log and manifest in the new place are the very files that were in the old one. */
async function renameChecked(from: string, to: string): Promise<void> {
  const identity = async (dir: string) =>
    Promise.all(
      [SESSION_FILES.log, SESSION_FILES.manifest].map((name) =>
        lstat(join(dir, name), { bigint: true }).then(
          (stats) => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`,
          () => 'missing',
        ),
      ),
    );
  const before = await identity(from);
  await moveEntry(from, to, 'relocate.session-renamed');
  const after = await identity(to);
  // A move across file systems copied every byte and checked it; a rename keeps the files themselves.
  if (
    before.join() !== after.join() &&
    !before.every((line, index) => line.split(':')[2] === after[index]!.split(':')[2])
  ) {
    throw new DamagedStoreError(`${to} does not hold the files ${from} held before it was moved`, { file: to });
  }
}

/** `keep`: the session copied beside its target under a hidden name, checked, its header rewritten, then published by rename. */
async function publishCopy(
  plan: RelocationPlan,
  from: string,
  to: string,
  newStore: string,
  id: string,
): Promise<void> {
  const staged = join(newStore, `.${id}.rxstore-relocating`);
  await rm(staged, { recursive: true, force: true });
  await copyVerified(from, staged);
  await rewriteHeader(plan, staged);
  await rename(staged, to);
  await fsyncDir(newStore);
  failPoint('relocate.session-copied');
}

/** Refuses to remove an old copy unless the new one holds the same bytes (header.json aside: its `cwd` was rewritten). */
async function checkSameFiles(from: string, to: string): Promise<void> {
  for (const file of await allFiles(from)) {
    const name = file.slice(from.length + 1);
    if (name === SESSION_FILES.header || name === SESSION_FILES.writerLock) continue;
    const there = join(to, name);
    if (!(await present(there)) || (await fileDigest(file)) !== (await fileDigest(there))) {
      throw new DamagedStoreError(
        `${there} differs from ${file}: both copies of the session are kept; move one aside, then relocate again`,
        { file: there },
      );
    }
  }
}

/** `header.json`'s `cwd` (docs/format.md §9.2), where it names the old folder, names the new one; every other byte stays. */
export async function rewriteHeader(plan: RelocationPlan, dir: string): Promise<void> {
  const path = join(dir, SESSION_FILES.header);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const rewritten = rewritePathField(text, 'cwd', plan.from, plan.to, plan.platform);
  if (rewritten !== undefined) await writeFileAtomic(path, rewritten, { point: 'relocate.header' });
}
