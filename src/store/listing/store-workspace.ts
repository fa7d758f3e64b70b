import type { Platform } from '../roots/platform.js';
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
