import { dirname, join } from 'node:path';
import { filesStamp } from '../fs/files-stamp.js';
import { RxError } from '../errors/index.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import { findSessionCopies } from '../store/listing/find-session-copies.js';
import { groupConversations } from '../store/listing/group-conversations.js';
import type { SessionCopy } from '../store/listing/session-copy.js';
import type { Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';
import type { ListedStore } from '../store/roots/store-kind.js';

/** A conversation to search, as `ls` counts it: once, by its copy in the newest store. */
export interface SearchSource {
  id: string;
  path: string;
  store: ListedStore;
  format: SessionCopy['format'];
  /** The workspace its files name before its log is read (a manifest's, a transcript's meta), else null. */
  workspace: string | null;
  /** The workspace slug it sits under, for `--workspace` when the session names none. */
  slug: string | null;
}

/** Every conversation under the roots, each once (`groupConversations`, as `ls` groups them), by the copy `ls` shows first. */
export async function searchSources(
  roots: readonly ReadRoot[],
  platform: Platform,
): Promise<{ sources: SearchSource[]; warnings: string[] }> {
  const found = await findSessionCopies([...roots]);
  const sources = groupConversations(found, platform).map(({ copies: [copy] }) => ({
    id: copy.id,
    path: copy.path,
    store: copy.store,
    format: copy.format,
    workspace: workspaceNamed(copy),
    slug: copy.slug,
  }));
  return { sources, warnings: found.warnings };
}

function workspaceNamed(copy: SessionCopy): string | null {
  if (copy.format === 'v4') return copy.header.state === 'ok' ? copy.header.value.cwd || null : null;
  if (copy.format === 'jsonl') return copy.meta.state === 'ok' ? copy.meta.value.workspace_root || null : null;
  return copy.meta.state === 'ok' ? copy.meta.value.workspace || null : null;
}

/** What says a session changed: a stat of each file its records come from. */
export function sourceStamp(source: SearchSource): string {
  if (source.format === 'v4')
    return filesStamp(
      [SESSION_FILES.log, SESSION_FILES.manifest, SESSION_FILES.header].map((name) => join(source.path, name)),
    );
  if (source.format === 'jsonl') return filesStamp([source.path, `${source.path}.meta`]);
  return filesStamp([source.path, join(dirname(source.path), `${source.id}.meta.json`)]);
}

/** The one line a hit carries to say its session was read only up to damage. */
export function damageOf(error: unknown): string {
  if (error instanceof RxError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
