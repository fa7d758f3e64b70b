import { foldersOfSlug } from './folders-of-slug.js';
import { currentPlatform, type Platform } from './platform.js';
import { sameSlug, workspaceSlug } from './workspace-slug.js';

/** The folders of each slug, found once for a listing or a search. */
export type SlugFolders = Map<string, Promise<string[]>>;

/**
 * The folder `reasonix --resume` finds a session from when the workspace it names is not the one whose
 * store it sits under (`slug`): the project moved and its sessions were relocated, or the session was
 * copied into another folder's store. That folder, where exactly one with that slug exists on this
 * machine; undefined where the session sits under its own folder's slug, names none, or no one folder is
 * found (none, or several sharing the slug).
 */
export async function storeFolder(
  workspace: string | null,
  slug: string | null,
  platform: Platform,
  folders: SlugFolders,
): Promise<string | undefined> {
  if (slug === null || workspace === null || platform !== currentPlatform()) return undefined;
  if (sameSlug(workspaceSlug(workspace, platform), slug, platform)) return undefined;
  let found = folders.get(slug);
  if (found === undefined) {
    found = foldersOfSlug(slug, platform);
    folders.set(slug, found);
  }
  const [only, ...more] = await found;
  return more.length === 0 ? only : undefined;
}
