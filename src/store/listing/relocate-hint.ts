import { statSync } from 'node:fs';
import { currentPlatform, type Platform } from '../roots/platform.js';
import { quote } from '../roots/shell-command.js';
import { sameSlug, workspaceSlug } from '../roots/workspace-slug.js';
import type { ListedSession } from './describe-conversation.js';

/** What stands in a suggested `rxstore relocate` for the folder only the user knows: where the project is now. */
export const NEW_FOLDER = '<new folder>';

/**
 * The `rxstore relocate` command that brings a session back within `reasonix --resume`'s reach when
 * the folder it was made in no longer exists (the project moved): only while it still sits under
 * that folder's slug, so a session already relocated is never pointed back. Null otherwise, and
 * for another platform's folders, which are not here to check. `folders` keeps each folder's answer
 * for one listing.
 */
export function relocateHint(session: ListedSession, platform: Platform, folders: Map<string, boolean>): string | null {
  const { workspace } = session;
  if (workspace === null || platform !== currentPlatform()) return null;
  const slug = workspaceSlug(workspace, platform);
  if (
    !session.copies.some(
      (copy) =>
        copy.scope === 'workspace' &&
        (copy.store === 'sessions-v4' || copy.store === 'jsonl') &&
        sameSlug(copy.slug, slug, platform),
    )
  )
    return null;
  let there = folders.get(workspace);
  if (there === undefined) {
    there = statSync(workspace, { throwIfNoEntry: false })?.isDirectory() ?? false;
    folders.set(workspace, there);
  }
  return there ? null : `rxstore relocate ${quote(workspace, platform)} ${NEW_FOLDER}`;
}
