import type { SessionRead } from './read-session.js';

/**
 * The workspace a session belongs to, from what the session itself says: `header.json` `cwd`
 * (or a transcript's `.jsonl.meta` `workspace_root`), else the `Current workspace: "<root>"` line
 * of the latest host session-context message.
 */
export function workspaceOf(read: Pick<SessionRead, 'header' | 'projection' | 'declaredWorkspace'>): string | undefined {
  if (read.header?.cwd) return read.header.cwd;
  if (read.declaredWorkspace) return read.declaredWorkspace;
  return read.projection.workspace;
}
