import { currentPlatform, type Platform } from '../roots/platform.js';
import { locateInStore } from '../roots/store-location.js';
import { storeFolder, type SlugFolders } from '../roots/store-folder.js';
import type { ListedCopy } from './describe-conversation.js';

/**
 * A copy's workspace as `reasonix --resume` finds it: a copy in a workspace's store that names another
 * folder is resumed from the folder of its store's slug (`storeFolder`), which is then its workspace
 * (`store-slug`). Otherwise the copy is as it was read.
 */
export async function storeWorkspace(copy: ListedCopy, platform: Platform, folders: SlugFolders): Promise<ListedCopy> {
  if (copy.scope !== 'workspace') return copy;
  const folder = await storeFolder(copy.workspace, copy.slug, platform, folders);
  return folder === undefined ? copy : { ...copy, workspace: folder, workspaceFrom: 'store-slug' };
}

/**
 * The workspace of a session read on its own (`inspect`, `view`), as a listing names it (`storeWorkspace`):
 * for a session in a workspace's store that names another folder (its project moved and relocated), the one
 * folder of its store's slug; else `named`, the folder it names.
 */
export async function sessionWorkspace(
  path: string,
  named: string | null,
  platform: Platform = currentPlatform(),
): Promise<string | null> {
  const location = locateInStore(path);
  if (location?.scope !== 'workspace') return named;
  return (await storeFolder(named, location.slug, platform, new Map())) ?? named;
}
