import type { SessionRead } from './read-session.js';

/** The line Reasonix's host session-context message names the workspace with. */
const WORKSPACE_LINE = /Current workspace: "((?:[^"\\]|\\.)*)"/;

/**
 * The workspace a session belongs to, from what the session itself says: `header.json` `cwd`
 * (or a transcript's `.jsonl.meta` `workspace_root`), else the `Current workspace: "<root>"` line of a host session-context message.
 */
export function workspaceOf(read: Pick<SessionRead, 'header' | 'projection' | 'declaredWorkspace'>): string | undefined {
  if (read.header?.cwd) return read.header.cwd;
  if (read.declaredWorkspace) return read.declaredWorkspace;
  for (const { message } of read.projection.transcript) {
    if (message.origin !== 'host' || typeof message.content !== 'string') continue;
    const match = WORKSPACE_LINE.exec(message.content);
    if (match) return match[1];
  }
  return undefined;
}
