import type { DesktopRegistryFacts } from '../roots/desktop-registry.js';
import type { Conversation, ParentSession } from './group-conversations.js';
import type { SessionCopy } from './session-copy.js';
import type { ListedStore } from '../roots/store-kind.js';
import { writerLockHolder } from '../../session/reading/writer-locks.js';
import { passedOverAsEmpty } from './catalog-entry.js';
import { isGoSpace } from '../../codec/go-json/go-space.js';
import { ZERO_TIME } from '../../codec/go-json/go-time.js';
import { dirname } from 'node:path';
import type { Platform } from '../roots/platform.js';
import { storeWorkspace } from './store-workspace.js';
import type { SlugFolders } from '../roots/store-folder.js';
import type { SummaryCache } from './summary-cache.js';
import { summariseAppended } from './summarise-appended.js';
import { summariseCopy, type CopySummary, type ListedStatus, type WorkspaceSource } from './summarise-copy.js';
import type { DisplayTitle } from '../../session/replay/session-title.js';
import type { GoesOnPastDamage } from '../../session/reading/checkpoint-cover.js';

/** One copy of a listed session, as `ls --json` and `where --json` print it. */
export interface ListedCopy {
  id: string;
  store: ListedStore;
  scope: 'workspace' | 'global';
  /** `projects/<slug>/` it sits under; null in a global store. */
  slug: string | null;
  path: string;
  /** The state or legacy root it was found under. */
  root: string;
  workspace: string | null;
  workspaceFrom: WorkspaceSource | null;
  title: string | null;
  /** `title`: the session's own; `preview`: what its first message says. */
  titleFrom: DisplayTitle['titleFrom'];
  /** Its last committed event's time, as `inspect --json` reports it (see `CopySummary`). */
  updatedAt: string | null;
  /** The messages a person sees. */
  messages: number;
  status: ListedStatus;
  problem: string | null;
  payloadRefs: number;
  /**
   * A damaged copy Reasonix goes on with all the same, from its recovery checkpoint past the damage
   * (docs/format.md §9.10): the checkpoint, what it covers and where the log is damaged; null otherwise.
   */
  goesOnFrom: GoesOnPastDamage | null;
  /**
   * How its verdict and facts were checked: `now`, its whole log (or transcript) read now;
   * `appended`, the summary cache's, with only the batches appended to its log since read now;
   * `cache`, the summary cache's, its files being as they were when it was read; `no`, not at all
   * (the system would not let it be read).
   */
  checked: 'now' | 'appended' | 'cache' | 'no';
  /**
   * A sessions-v4 copy whose manifest has no `storageRevision` (an unpublished draft): Reasonix never
   * opens it, but imports it into a new session of the same store and goes on there (docs/format.md §10.3).
   */
  draft: boolean;
  /**
   * A sessions-v4 copy Reasonix's catalog holds, as its log stands, as empty (no turn, title or text of the
   * person's): `reasonix --resume <id>` passes over it (`passedOverAsEmpty`). Checked when it is read, never cached.
   */
  passedOver: boolean;
}

/**
 * A conversation, described by its newest store's copy: that copy's facts, except the title and
 * workspace, which come from the first copy that has them — `titleCopy` and `workspaceCopy` name
 * that copy's path (the described one's own path when it is its own). `copies` is every copy,
 * the described one first, each with only its own facts — as in `locateSession`.
 */
export interface ListedSession extends ListedCopy {
  titleCopy: string | null;
  workspaceCopy: string | null;
  copies: ListedCopy[];
  parent: ParentSession | null;
  /**
   * Set when the workspace folder no longer exists while the session still sits under its slug (the
   * project moved): the `rxstore relocate <old> <new folder>` command that brings it back, the new
   * folder left for the user to name. Null otherwise.
   */
  relocate: string | null;
}

/** How `readCopies` reads: in full or for listing, with which desktop registries and summary cache (`ListOptions`). */
interface CopyReading {
  verify: boolean;
  registries: Map<string, DesktopRegistryFacts>;
  cache?: SummaryCache;
  beforeReading?: () => void;
  /** Where a copy read whole is summarised: `summariseCopy` here, or a `SummaryPool`'s threads. */
  summarise?: typeof summariseCopy;
  /** Whose slugs the stores' folder names are (`storeWorkspace`). */
  platform: Platform;
  /** The folders of each slug, found once for a listing (`storeWorkspace`). */
  slugFolders?: SlugFolders;
}

/** Reads every copy of a conversation, the newest store's first. */
export async function readCopies(
  conversation: Conversation,
  options: CopyReading,
): Promise<[ListedCopy, ...ListedCopy[]]> {
  const folders: SlugFolders = options.slugFolders ?? new Map();
  const copies = await Promise.all(
    conversation.copies.map(async (copy) => storeWorkspace(await readCopy(copy, options), options.platform, folders)),
  );
  return copies as [ListedCopy, ...ListedCopy[]];
}

async function readCopy(copy: SessionCopy, options: CopyReading): Promise<ListedCopy> {
  const { cache } = options;
  const registry = options.registries.get(copy.root);
  const found = cache ? await cache.lookup(copy) : undefined;
  if (found?.summary && !options.verify) return listedCopy(copy, await withLockState(copy, found.summary), 'cache');
  options.beforeReading?.();
  // A log that only grew since it was read: only its new batches are read. Any doubt, or anything
  // that stops that read, and the log is read whole, which names any damage as Reasonix would.
  const appended =
    found?.resume && copy.format === 'v4' && !options.verify
      ? await summariseAppended(copy, found.resume, found.content?.files ?? [], registry).catch(() => undefined)
      : undefined;
  const read =
    appended ??
    (await (options.summarise ?? summariseCopy)(copy, {
      verify: options.verify,
      registry,
      forCache: cache !== undefined,
    }));
  const { summary } = read;
  // A copy a running Reasonix holds may be mid-append, and an unreadable one told nothing: neither is kept.
  if (cache && summary.status !== 'locked' && summary.status !== 'unreadable') cache.keep(copy, found?.identity, read);
  return listedCopy(copy, summary, summary.status === 'unreadable' ? 'no' : appended ? 'appended' : 'now');
}

/** Whether `reasonix --resume` passes over the copy as empty; asked of Reasonix's catalog only for a copy with no title or text of the person's. */
async function passedOver(copy: SessionCopy, summary: CopySummary): Promise<boolean> {
  if (copy.format !== 'v4' || copy.manifest.state !== 'ok') return false;
  // A title of white space is none to Reasonix.
  if (summary.title !== null && !isGoSpace(summary.title)) return false;
  return passedOverAsEmpty({
    dir: copy.path,
    id: copy.id,
    storeDir: dirname(copy.path),
    // A manifest without one holds Go's zero time.
    createdAt: copy.manifest.value.createdAt ?? ZERO_TIME,
  });
}

/** A kept summary, with whether a running Reasonix holds the session now (a lock is never cached). */
async function withLockState(copy: SessionCopy, summary: CopySummary): Promise<CopySummary> {
  if (copy.format !== 'v4' || (summary.status !== 'ok' && summary.status !== 'torn-tail')) return summary;
  return (await writerLockHolder(copy.path)) ? { ...summary, status: 'locked' } : summary;
}

/**
 * A conversation described by its first (newest-store) copy. Where that copy does not name its
 * workspace, or has no title of its own, another copy's is used: a migrated v4 twin does not know
 * what its JSONL meta knew.
 */
export function describeConversation(all: [ListedCopy, ...ListedCopy[]], parent: ParentSession | null): ListedSession {
  const [primary] = all;
  const named = all.find((copy) => copy.workspace !== null);
  const titled = all.find((copy) => copy.titleFrom === 'title') ?? all.find((copy) => copy.title !== null);
  return {
    ...primary,
    workspace: named?.workspace ?? null,
    workspaceFrom: named?.workspaceFrom ?? null,
    workspaceCopy: named?.path ?? null,
    title: titled?.title ?? null,
    titleFrom: titled?.titleFrom ?? null,
    titleCopy: titled?.path ?? null,
    copies: all,
    parent,
    relocate: null,
  };
}

async function listedCopy(
  copy: SessionCopy,
  summary: CopySummary,
  checked: ListedCopy['checked'],
): Promise<ListedCopy> {
  const { id, store, scope, slug, path, root } = copy;
  // Read from the manifest found with the copy, so a summary kept in the cache needs no field for it.
  const draft =
    copy.format === 'v4' && copy.manifest.state === 'ok' && (copy.manifest.value.storageRevision ?? 0) === 0;
  // Asked when the copy is listed, never cached, as the lock is not: Reasonix's catalog changes beside the session.
  return {
    id,
    store,
    scope,
    slug,
    path,
    root,
    ...summary,
    checked,
    draft,
    passedOver: await passedOver(copy, summary),
  };
}
