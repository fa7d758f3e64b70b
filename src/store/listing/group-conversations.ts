import { basename, dirname, join } from 'node:path';
import { V4_CODEC } from '../../codec/records.js';
import type { FoundCopies } from './find-session-copies.js';
import type { Platform } from '../roots/platform.js';
import type { SessionCopy } from './session-copy.js';
import { copyIndexes, recordedCopyIn } from './recorded-copy.js';
import { STORES_NEWEST_FIRST } from '../roots/store-kind.js';
import { v4StoreForJsonlDir } from '../roots/v4-store-for-jsonl-dir.js';
import { workspaceSlug } from '../roots/workspace-slug.js';

/** The session a fork or rewind was cut from (docs/format.md §10.4). */
export interface ParentSession {
  id: string;
  /** Its directory: where it is now, or where the child's manifest says it was. */
  path: string;
}

/** One conversation: every copy of it, the newest store's first, and what it was forked from. */
export interface Conversation {
  copies: [SessionCopy, ...SessionCopy[]];
  parent: ParentSession | null;
}

/**
 * Groups copies into conversations (docs/format.md §10, §12). Copies of one conversation are: v4 sessions
 * with the same id in any store; a v4 session and the JSONL transcript its manifest `source`
 * names (a migration) while the transcript holds what was migrated (`found.outgrown`), or the same-id mirror in the transcript's sibling `sessions-v4`; a desktop
 * session and the source its registry `sourceMappings` entry names; a legacy-root transcript and
 * its import into the state root; an unpublished draft and the session it was imported into. A
 * fork (its `source` a published v4 session) is a conversation of its own, with its parent named.
 */
export function groupConversations(found: FoundCopies, platform: Platform): Conversation[] {
  const { copies } = found;
  const leader = copies.map((_, index) => index);
  const find = (index: number): number => {
    while (leader[index] !== index) index = leader[index] = leader[leader[index]!]!;
    return index;
  };
  const union = (a: number, b: number) => {
    leader[find(a)] = find(b);
  };
  const indexes = copyIndexes(copies);
  const { byPath, byKey } = indexes;
  const resolve = recordedCopyIn(copies, indexes);
  const parents = new Map<number, ParentSession>();

  for (const same of groupIndexes(copies, (copy) => (copy.format === 'v4' ? copy.id : undefined)).values()) {
    for (const index of same.slice(1)) union(index, same[0]!);
  }
  copies.forEach((copy, index) => {
    if (copy.format === 'v4') {
      const source = copy.manifest.state === 'ok' ? copy.manifest.value.source : undefined;
      // A source without a path (Go's zero value) names nothing to group with.
      if (!source?.path) return;
      const target = resolve(source.path, copy);
      const targetCopy = target === undefined ? undefined : copies[target];
      if (source.version !== V4_CODEC) {
        // A JSONL migration (docs/format.md §10.1), while the transcript still holds what was migrated.
        if (target !== undefined && !found.outgrown.has(copy.path)) union(index, target);
      } else if (
        targetCopy?.format === 'v4' &&
        targetCopy.manifest.state === 'ok' &&
        targetCopy.manifest.value.storageRevision === undefined
      ) {
        union(index, target!); // an unpublished draft imported under a new id (docs/format.md §10.3)
      } else {
        const path = source.path;
        parents.set(index, { id: targetCopy?.id ?? basename(path), path: targetCopy?.path ?? path });
      }
      return;
    }
    // The same-id mirror lives in the transcript directory's v4 root (docs/format.md §1.2 RootForLegacyDir, §10.2).
    const jsonlDir = dirname(copy.path);
    const mirror = byPath.get(join(v4StoreForJsonlDir(jsonlDir), copy.id));
    if (mirror !== undefined) union(index, mirror);
    if (copy.store === 'legacy') {
      // Imports keep the file name, in the same place below the state root, or under the v0 workspace's slug (docs/format.md §11.4).
      const keys = [copy.key];
      if (copy.format === 'v0' && copy.meta.state === 'ok' && copy.meta.value.workspace) {
        keys.push(`projects/${workspaceSlug(copy.meta.value.workspace, platform)}/sessions/${basename(copy.path)}`);
      }
      for (const key of keys)
        for (const other of byKey.get(key) ?? []) if (copies[other]!.store === 'jsonl') union(index, other);
    }
  });
  for (const [root, registry] of found.registries) {
    for (const mapping of registry.sourceMappings) {
      const desktop = copies.findIndex(
        (copy) => copy.store === 'desktop-sessions-v5' && copy.root === root && copy.id === mapping.sessionId,
      );
      if (desktop < 0) continue;
      const source = resolve(mapping.path, copies[desktop]!);
      if (source !== undefined) union(desktop, source);
    }
  }

  return [...groupIndexes(copies, (_, index) => String(find(index))).values()].map((members) => {
    const ordered = members.map((index) => copies[index]!).sort(newestStoreFirst);
    const parentOf = members.map((index) => parents.get(index)).find(Boolean) ?? null;
    return { copies: ordered as Conversation['copies'], parent: parentOf };
  });
}

/** Newest store first; within a store, a workspace's copy before the global one, then the latest change. */
function newestStoreFirst(a: SessionCopy, b: SessionCopy): number {
  return (
    STORES_NEWEST_FIRST.indexOf(a.store) - STORES_NEWEST_FIRST.indexOf(b.store) ||
    Number(a.scope === 'global') - Number(b.scope === 'global') ||
    (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') ||
    a.path.localeCompare(b.path)
  );
}

/** Indexes of the items sharing each key; items without a key are left out. */
function groupIndexes<T>(items: T[], keyOf: (item: T, index: number) => string | undefined): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = keyOf(item, index);
    if (key === undefined) return;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  return groups;
}
