import type { ListedCopy } from '../listing/describe-conversation.js';
import type { GoesOnPastDamage } from '../../session/reading/checkpoint-cover.js';
import { reasonixRefuses } from '../../session/verdict/read-session.js';
import { pathsOf } from '../roots/platform.js';
import type { ResumeContext } from '../roots/roots.js';

export type { ResumeContext };
import { copyInto, fromFolder, reasonixResume } from '../roots/shell-command.js';
import { sameSlug, workspaceSlug } from '../roots/workspace-slug.js';

/** Why `reasonix --resume <id>` from a folder does, or does not, open a copy (docs/format.md §13.1). */
export type ResumeReason =
  | 'resumes'
  | 'resumes-past-damage'
  | 'imports-draft'
  | 'passed-over-as-empty'
  | 'other-workspace'
  | 'global-store'
  | 'desktop-store'
  | 'other-state-root'
  | 'legacy-root'
  | 'damaged'
  | 'unsupported'
  | 'unreadable'
  | 'locked'
  | 'no-state-root';

/** Whether Reasonix resumes a copy as it stands, and the command that does. */
export interface ResumeVerdict {
  /**
   * `reasonix --resume <id>` run from the folder finds this copy and goes on with the conversation:
   * in this copy (`resumes`; `resumes-past-damage` for a damaged copy it opens from its recovery checkpoint,
   * past the damage), or, for a draft, in the new session it imports it into (`imports-draft`).
   */
  resumes: boolean;
  reason: ResumeReason;
  explanation: string;
  /** A command that would resume the conversation from this copy; null when none would. */
  command: string | null;
  /** The command first copies the session into its workspace's store (the CLI never reads where it is). */
  copiesSession: boolean;
}

/**
 * What Reasonix 1.38.11 makes of `reasonix --resume <id>` from `context.cwd` for one copy
 * (docs/format.md §13.1): it searches only `<state>/projects/<slug(cwd)>/sessions-v4` for an exact id and
 * `<state>/projects/<slug(cwd)>/sessions` for a JSONL branch id (a JSONL path resumes from
 * anywhere); never another workspace's store, the global stores, the desktop store or a legacy
 * root. `workspace` is the conversation's workspace, for copies that do not name one; `siblings`
 * are its other copies, which a suggested copy must not overwrite.
 */
export function resumeVerdict(
  copy: ListedCopy,
  workspace: string | null,
  siblings: readonly ListedCopy[],
  context: ResumeContext,
): ResumeVerdict {
  const { platform, cwd, reasonixStateRoot: state } = context;
  const paths = pathsOf(platform);
  const slugOf = (folder: string) => workspaceSlug(folder, platform);
  const cwdSlug = slugOf(cwd);
  // A refused payload's problem already says Reasonix would refuse it: said once.
  const why = (copy.problem ?? copy.status).replace(/^Reasonix [\d.]+ would refuse: /, '');
  const verdict = (
    reason: ResumeReason,
    explanation: string,
    command: string | null,
    copiesSession = false,
  ): ResumeVerdict => ({
    resumes: reason === 'resumes' || reason === 'resumes-past-damage' || reason === 'imports-draft',
    reason,
    // Wherever a command finds a draft, Reasonix imports it rather than open it: said with every such command;
    // and wherever one finds a damaged copy, that Reasonix goes on with it only from its recovery checkpoint.
    explanation:
      copy.draft && command !== null && reason !== 'imports-draft'
        ? `${explanation}; a draft (its manifest has no storageRevision), which Reasonix imports into a new session under a new id and goes on there`
        : copy.goesOnFrom && reasonixRefuses(copy.status) && command !== null && reason !== 'resumes-past-damage'
          ? `${explanation}; where that command finds it, it is ${pastDamage(copy.goesOnFrom, copy.status, why)}`
          : explanation,
    command,
    copiesSession,
  });
  const pinned = context.pinned ?? {};
  const byId = reasonixResume(copy.id, platform, pinned);
  const byPath = reasonixResume(copy.path, platform, pinned);
  // The folder whose slug the copy sits under: the only one `--resume <id>` finds it from.
  const home = [copy.workspace, workspace, context.workspace ?? null].find(
    (folder): folder is string => folder !== null && sameSlug(slugOf(folder), copy.slug, platform),
  );
  const fromHome = (command: string) => (home ? fromFolder(home, command, platform) : null);
  const notFromHere = `Reasonix searches only the store of the folder it runs in (${cwd}, slug ${cwdSlug})`;

  if (!state)
    return verdict(
      'no-state-root',
      'Reasonix has no state root here: neither REASONIX_HOME nor a home directory is set',
      null,
    );
  const past = copy.goesOnFrom;
  if (reasonixRefuses(copy.status) && !past)
    return verdict(copy.status, `Reasonix would refuse this copy: ${why}`, null);
  if (copy.status === 'unreadable') {
    // rxstore's own bound, not Reasonix's (it reads a message of any length): the command that would resume it stands.
    if (copy.problem?.startsWith('RX_TOO_LARGE:')) {
      const asRead = resumeVerdict({ ...copy, status: 'ok' }, workspace, siblings, context);
      return {
        ...asRead,
        resumes: false,
        reason: 'unreadable',
        explanation: `rxstore cannot read it whole (${copy.problem}), so whether Reasonix opens it was not checked; Reasonix has no such bound`,
      };
    }
    return verdict('unreadable', `it cannot be read: ${copy.problem ?? 'unreadable'}`, null);
  }
  const sameRoot = paths.resolve(copy.root) === paths.resolve(state);

  if (copy.store === 'legacy') {
    return verdict(
      'legacy-root',
      `${copy.root} is a legacy root Reasonix only imports from; a transcript path resumes from anywhere (migrated into the store of the folder it runs in)`,
      fromHome(byPath) ?? byPath,
    );
  }
  if (copy.store === 'jsonl') {
    if (!sameRoot)
      return verdict(
        'other-state-root',
        `it is under ${copy.root}, not under Reasonix's state root ${state}; a transcript path resumes from anywhere`,
        fromHome(byPath) ?? byPath,
      );
    if (sameSlug(copy.slug, cwdSlug, platform))
      return verdict(
        'resumes',
        "a JSONL transcript of this folder: Reasonix migrates it into this folder's sessions-v4 store and opens that",
        byId,
      );
    const where = copy.slug === null ? 'the global JSONL store' : `the JSONL store of slug ${copy.slug}`;
    return verdict(
      copy.slug === null ? 'global-store' : 'other-workspace',
      `it is in ${where}; ${notFromHere}; its path resumes from anywhere`,
      fromHome(byId) ?? byPath,
    );
  }

  if (past && reasonixRefuses(copy.status) && (copy.store === 'desktop-sessions-v5' || copy.scope === 'global')) {
    // Its recovery cache stays where it is: a copy into a store the CLI reads goes without it, and is refused.
    return verdict(
      copy.status,
      `Reasonix would refuse a copy of it in a store it reads: ${why}; only the recovery checkpoint beside this copy takes Reasonix past that, and it does not go with the copy`,
      null,
    );
  }
  if (copy.store === 'desktop-sessions-v5' || copy.scope === 'global') {
    const why =
      copy.store === 'desktop-sessions-v5'
        ? 'a desktop session: the CLI never reads desktop-sessions-v5'
        : 'it is in the global sessions-v4 store, which `reasonix --resume` never searches (`reasonix acp` session/load reads it)';
    // Copied into the store of its workspace (or of this folder), with its content store when it uses one.
    const target = copy.workspace ?? workspace ?? context.workspace ?? cwd;
    const store = paths.join(state, 'projects', slugOf(target), 'sessions-v4');
    const present = siblings.find((sibling) => sibling.path === paths.join(store, copy.id));
    if (present)
      return verdict(
        copy.store === 'desktop-sessions-v5' ? 'desktop-store' : 'global-store',
        `${why}; its copy ${present.path} is the one to resume`,
        null,
      );
    const command = [
      copyInto(copy.path, store, platform),
      ...(copy.payloadRefs > 0 ? [copyInto(paths.join(paths.dirname(copy.path), '.content-v1'), store, platform)] : []),
      fromFolder(target, byId, platform),
    ].join(' && ');
    return verdict(
      copy.store === 'desktop-sessions-v5' ? 'desktop-store' : 'global-store',
      `${why}; a copy in the store of ${target} resumes`,
      command,
      true,
    );
  }
  if (!sameRoot) {
    return verdict(
      'other-state-root',
      `it is under ${copy.root}, not under Reasonix's state root ${state}`,
      fromHome(reasonixResume(copy.id, platform, { ...pinned, REASONIX_STATE_HOME: copy.root })),
    );
  }
  if (!sameSlug(copy.slug, cwdSlug, platform)) {
    const owner = home ? `${home} (slug ${copy.slug})` : `the folder whose slug is ${copy.slug}`;
    return verdict('other-workspace', `it is in the store of ${owner}; ${notFromHere}`, fromHome(byId));
  }
  if (copy.status === 'locked') {
    return verdict(
      'locked',
      'a running Reasonix holds its writer lock: a second one refuses it (`session writer is owned by another runtime`) until that one exits',
      byId,
    );
  }
  if (copy.draft) {
    return verdict(
      'imports-draft',
      `it is in this folder's sessions-v4 store, but a draft (its manifest has no storageRevision): Reasonix does not open it; it imports it into a new session of this store, under a new id, and goes on there, leaving the draft as it is (a later resume by this id goes on in that import while the draft is unchanged)`,
      byId,
    );
  }
  if (copy.passedOver)
    return verdict(
      'passed-over-as-empty',
      `it is in this folder's sessions-v4 store, but Reasonix's catalog of the store holds it as empty (no turn, title or message of the person's): \`reasonix --resume\` passes over it and answers "no session matches" until its log changes`,
      null,
    );
  if (past && reasonixRefuses(copy.status))
    return verdict(
      'resumes-past-damage',
      `it is in this folder's sessions-v4 store, ${pastDamage(past, copy.status, why)}`,
      byId,
    );
  return verdict('resumes', "it is in this folder's sessions-v4 store", byId);
}

/**
 * Why Reasonix goes on with a damaged copy (docs/format.md §9.10): it opens it from its recovery checkpoint and
 * reads nothing of the log before the checkpoint's anchor, where the damage is; without the checkpoint it refuses.
 */
function pastDamage(past: GoesOnPastDamage, status: 'damaged' | 'unsupported', why: string): string {
  const where = past.damagedAt === null ? '' : ` at offset ${past.damagedAt}`;
  return (
    `${status}${where} (${why}), and Reasonix goes on with it all the same: ` +
    `it opens it from its recovery checkpoint ${past.checkpoint}, which covers the log to sequence ${past.sequence} ` +
    `(offset ${past.logOffset}), and reads nothing of it before offset ${past.anchorOffset}; ` +
    `without that checkpoint (its cache removed, or the storage identity renewed) Reasonix refuses the copy for that damage`
  );
}
