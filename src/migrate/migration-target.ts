import { realpath } from 'node:fs/promises';
import { pathsOf, type Platform } from '../store/roots/platform.js';
import { sameSlug, workspaceSlug } from '../store/roots/workspace-slug.js';
import { undefinedIfMissing } from '../errors/index.js';

/** Where a migrated transcript is published, and the folder `reasonix --resume <id>` finds it from. */
export interface MigrationTarget {
  /** The sessions-v4 store directory. */
  storeDir: string;
  /**
   * `transcript-workspace`: the transcript sits in a workspace's JSONL store under the state root,
   * so its session goes to that workspace's sessions-v4 store; `working-directory`: any other
   * transcript goes to the store of the folder Reasonix runs from; `explicit`: `to` named it.
   */
  placement: 'transcript-workspace' | 'working-directory' | 'explicit';
  /** The slug folder of the store under `<state>/projects/`; null for a store elsewhere. */
  slug: string | null;
  /** A folder whose slug is the store's, from which `reasonix --resume <id>` finds the session; null when none is known. */
  workspace: string | null;
}

export interface TargetContext {
  /** The state root Reasonix 1.38.11 uses (docs/format.md §1.1). */
  stateRoot: string;
  /** The absolute folder Reasonix would run from. */
  cwd: string;
  platform: Platform;
  /** The workspace the transcript's `.jsonl.meta` declares, if any. */
  declaredWorkspace?: string;
  /** An explicit sessions-v4 directory. */
  to?: string;
}

/**
 * Picks the store as Reasonix 1.38.11 does when it resumes a transcript (docs/format.md §10.1, §13.1).
 * `reasonix --resume <id>` finds a transcript of the folder's own JSONL store
 * (`<state>/projects/<slug>/sessions/`) and migrates it into the sibling `sessions-v4`;
 * `reasonix --resume <path>` takes a transcript from anywhere else (the global `sessions/`, a v0.x
 * root, any folder) into the store of the folder it runs from, `<state>/projects/<slug(cwd)>/sessions-v4/`.
 * `canonicalTranscript` is the path with symbolic links resolved, as Reasonix hashes it.
 */
export async function migrationTarget(canonicalTranscript: string, context: TargetContext): Promise<MigrationTarget> {
  const paths = pathsOf(context.platform);
  const { stateRoot, cwd, platform } = context;
  const projectStore = (slug: string) => paths.join(stateRoot, 'projects', slug, 'sessions-v4');
  const folderFor = (slug: string) =>
    [cwd, context.declaredWorkspace].find(
      (folder): folder is string => folder !== undefined && sameSlug(workspaceSlug(folder, platform), slug, platform),
    ) ?? null;

  if (context.to !== undefined) {
    const storeDir = paths.resolve(context.to);
    const slug = slugOfStore(paths.relative(stateRoot, storeDir), 'sessions-v4', platform);
    return { storeDir, placement: 'explicit', slug, workspace: slug === null ? null : folderFor(slug) };
  }
  // The state root may itself be reached through a link; the transcript's path has every link resolved.
  const canonicalRoot = await realpath(stateRoot).catch(
    (error: unknown) => undefinedIfMissing(error, stateRoot) ?? paths.resolve(stateRoot),
  );
  const slug = slugOfStore(paths.relative(canonicalRoot, paths.dirname(canonicalTranscript)), 'sessions', platform);
  if (slug !== null)
    return { storeDir: projectStore(slug), placement: 'transcript-workspace', slug, workspace: folderFor(slug) };
  const cwdSlug = workspaceSlug(cwd, platform);
  return { storeDir: projectStore(cwdSlug), placement: 'working-directory', slug: cwdSlug, workspace: cwd };
}

/** The slug of `projects/<slug>/<store>`, a path relative to the state root; null for anything else. */
function slugOfStore(relative: string, store: string, platform: Platform): string | null {
  const parts = relative.split(platform === 'win32' ? /[\\/]/ : '/');
  if (parts.length !== 3 || parts[0] !== 'projects' || parts[2] !== store) return null;
  const slug = parts[1]!;
  return slug === '' || slug === '.' || slug === '..' || slug.startsWith('.') ? null : slug;
}
