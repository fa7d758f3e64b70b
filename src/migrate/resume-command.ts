import type { Platform } from '../store/roots/platform.js';
import { fromFolder, reasonixResume, withEnv } from '../store/roots/shell-command.js';

/** The variable that pins Reasonix's state root in a printed command (docs/format.md §1.1). */
export interface PinnedRoot {
  name: 'REASONIX_HOME' | 'REASONIX_STATE_HOME';
  value: string;
}

/**
 * `cd <workspace> && [REASONIX_HOME=<root>] reasonix --resume <id>`, quoted for the platform's
 * shell: the command that opens a migrated session as printed, from the only folder whose store
 * Reasonix searches, with the state root it was written under when that came from an option or
 * the environment.
 */
export function resumeCommand(id: string, workspace: string, platform: Platform, pinned?: PinnedRoot): string {
  return fromFolder(workspace, resumeWithRoot(id, platform, pinned), platform);
}

/** `[REASONIX_HOME=<root>] reasonix --resume <id>`, for when the folder to run it from is not known. */
export function resumeWithRoot(id: string, platform: Platform, pinned?: PinnedRoot): string {
  return withEnv(pinned ? { [pinned.name]: pinned.value } : {}, reasonixResume(id, platform), platform);
}
