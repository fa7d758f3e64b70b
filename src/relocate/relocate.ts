import { join } from 'node:path';
import { DIR_MODE } from '../fs/atomic-write.js';
import { failPoint } from '../fs/fail-point.js';
import { ZERO_TIME } from '../codec/records.js';
import { readManifest } from '../session/reading/manifest.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import { passedOverAsEmpty } from '../store/listing/catalog-entry.js';
import { reasonixResume, fromFolder } from '../store/roots/shell-command.js';
import { moveTranscript } from './move-transcript.js';
import { moveV4Session } from './move-v4-session.js';
import { removeJournal, writeJournal } from './relocation-journal.js';
import { recordRelocation } from './relocation-record.js';
import { RelocationPlanSchema, type RelocationPlan } from './relocation-plan.js';
import { withStateRootsHeld } from './state-roots-held.js';
import {
  bringContentStore,
  carryMigrationMap,
  carryOthers,
  carryTitles,
  clearOldFolder,
  rerootDesktopSessions,
  rerootDesktopWorkspaces,
} from './workspace-files.js';
import { makeFolders } from '../fs/make-folders.js';

/** What a relocation did. */
export interface RelocationReport {
  plan: RelocationPlan;
  /** Ids of the sessions now under the new workspace's slug. */
  moved: string[];
  /** What was left in the old slug's folder, and why: entries rxstore does not know, or a name the new folder already had. */
  left: string[];
  /** A command that goes on with the first moved session from the new folder. */
  resume: string | null;
  /** Why the finished move is not recorded in a state root (a file there that is not rxstore's record): a run again cannot tell it finished. */
  unrecorded: string[];
}

/**
 * Carries out a plan from `planRelocation`: the plan is first kept as a journal in each state root;
 * each session is then moved (content objects first, the session by rename, its recorded workspace
 * pointed at the new folder), then the workspace's migration map, titles and other files, the
 * desktop registry's roots, and last the old slug's emptied folder is removed, the move recorded
 * (`recordRelocation`), and the journal removed. A crash at any point leaves each session whole in one store, and the same plan run again
 * (`planRelocation` finds the journal) finishes the move.
 */
export async function relocate(plan: RelocationPlan): Promise<RelocationReport> {
  const checked = RelocationPlanSchema.parse(plan);
  // The one that waited for another finds its plan's sessions moved, and only finishes them.
  return withStateRootsHeld(
    checked.stores.map((store) => store.stateRoot),
    () => relocateHeld(checked),
  );
}

async function relocateHeld(checked: RelocationPlan): Promise<RelocationReport> {
  const left: string[] = [];
  for (const store of checked.stores) await writeJournal(store.stateRoot, checked);
  failPoint('relocate.journal-written');
  for (const store of checked.stores) {
    makeFolders(join(store.toDir, 'sessions-v4'), DIR_MODE);
    if (checked.session === null) await bringContentStore(store);
    for (const session of store.sessions) {
      if (session.store === 'sessions-v4') await moveV4Session(checked, store, session);
      else await moveTranscript(checked, store, session);
    }
    await carryMigrationMap(checked, store);
    await carryTitles(checked, store);
    if (checked.session === null) {
      await carryOthers(checked, store, left);
      await rerootDesktopWorkspaces(checked, store);
      await rerootDesktopSessions(checked, store);
      if (!checked.keep) await clearOldFolder(store, left);
    }
  }
  // Recorded before the journal goes: a crash between the two leaves the journal, which finishes the move again.
  const finishedAt = new Date();
  const unrecorded: string[] = [];
  for (const store of checked.stores) {
    const why = await recordRelocation(store.stateRoot, checked, finishedAt);
    if (why) unrecorded.push(why);
  }
  for (const store of checked.stores) await removeJournal(store.stateRoot);
  failPoint('relocate.done');
  const moved = [...new Set(checked.stores.flatMap((store) => store.sessions.map((session) => session.id)))];
  const resumed = await firstFound(checked);
  return {
    plan: checked,
    moved,
    left,
    unrecorded,
    resume: resumed
      ? fromFolder(checked.to, reasonixResume(resumed, checked.platform, checked.pinned), checked.platform)
      : null,
  };
}

/**
 * The first moved session `reasonix --resume` finds from the new folder: not one its catalog holds as empty
 * (a `reasonix serve` leaves such a session in the store at each start, and its id answered "no session
 * matches"); undefined when every one is.
 */
async function firstFound(plan: RelocationPlan): Promise<string | undefined> {
  for (const store of plan.stores) {
    const storeDir = join(store.toDir, 'sessions-v4');
    for (const session of store.sessions) {
      if (session.store !== 'sessions-v4') return session.id;
      const dir = join(storeDir, session.id);
      const manifest = await readManifest(join(dir, SESSION_FILES.manifest));
      // A manifest without one holds Go's zero time.
      const createdAt = manifest.state === 'ok' ? (manifest.value.createdAt ?? ZERO_TIME) : ZERO_TIME;
      if (!(await passedOverAsEmpty({ dir, id: session.id, storeDir, createdAt }))) return session.id;
    }
  }
  return undefined;
}
