import { describeConversation, readCopies, type ListedSession } from './describe-conversation.js';
import { relocateHint } from './relocate-hint.js';
import { findSessionCopies } from './find-session-copies.js';
import { groupConversations, type Conversation } from './group-conversations.js';
import { mapInOrder } from './map-in-order.js';
import { SummaryPool } from './summary-pool/summary-pool.js';
import type { Platform } from '../roots/platform.js';
import type { ReadRoot } from '../roots/roots.js';
import type { ListedStore } from '../roots/store-kind.js';
import type { SummaryCache } from './summary-cache.js';
import { sameSlug, workspaceSlug } from '../roots/workspace-slug.js';
import { SessionNotFoundError } from '../../errors/index.js';
import { rootsRead } from './find-session.js';
import { checkPlatformOptions, checkRoots } from '../../errors/caller-input.js';

/** How `listSessions` lists: whose rules, which stores and workspace, whether to verify in full, the summary cache. */
export interface ListOptions {
  /** Whose path and slug rules apply. */
  platform: Platform;
  /** Verify each session fully (`readSession`, every JSONL line) instead of reading it for listing. */
  verify?: boolean;
  /** Only sessions of this workspace (an absolute path): the one they name, or the one whose slug they sit under. */
  workspace?: string;
  /** Read only these stores. */
  stores?: readonly ListedStore[];
  /** Sessions read at once; default 16. */
  concurrency?: number;
  /**
   * Worker threads that read sessions whole beside this one, which reads its share too, once more
   * than a few need reading (the summary cache answers most listings); 0 reads every session on this
   * thread. Default: one fewer than the machine's cores. The rows, their order and every verdict are
   * the same either way.
   */
  threads?: number;
  /**
   * A summary cache (`SummaryCache.open()`): a copy whose files did not change since it was read is
   * not read again (its row says `checked: 'cache'`), and what is read is kept in it; call its
   * `save()` when the listing is done. None by default.
   */
  cache?: SummaryCache;
  /**
   * Called before a copy's log or transcript is read (never for one the summary cache answers):
   * the CLI tunes V8 for reading there, and leaves a listing the cache answers untuned.
   */
  beforeReading?: () => void;
  /** Told after each conversation is read: how many are, of how many (a progress bar for `--verify`). */
  onProgress?: (done: number, total: number) => void;
}

/** What `listSessions` returns: the sessions as they are read, and the stores that could not be read. */
export interface SessionListing {
  /** Stores that could not be read: they are not empty, and the listing says so. */
  warnings: string[];
  /** Each conversation once, the one whose last committed event is newest first. */
  sessions: AsyncGenerator<ListedSession>;
  /** What a listing that found nothing says: where it looked (and for which workspace), roots that are not there said so. */
  nothingFound(): Promise<SessionNotFoundError>;
}

/**
 * Lists every session under the roots. Directory listings and metadata files are read first, to
 * group copies into conversations (docs/format.md §10, §12); then every conversation's logs and transcripts
 * are read, a few at once, since only they say when each last changed: a file's mtime says when
 * it was copied, not when it was written.
 */
export async function listSessions(roots: readonly ReadRoot[], options: ListOptions): Promise<SessionListing> {
  checkRoots(roots);
  checkPlatformOptions(options, 'listSessions');
  const found = await findSessionCopies([...roots], options.stores);
  const conversations = groupConversations(found, options.platform);
  const wanted = options.workspace === undefined ? undefined : workspaceSlug(options.workspace, options.platform);
  const folders = new Map<string, boolean>();
  async function* sessions(): AsyncGenerator<ListedSession> {
    // Started on the first read, not here: a listing never iterated starts no thread.
    const pool = new SummaryPool({ threads: options.threads });
    const summarise = pool.summarise.bind(pool);
    const reading = {
      verify: options.verify ?? false,
      registries: found.registries,
      cache: options.cache,
      beforeReading: options.beforeReading,
      summarise,
      platform: options.platform,
      slugFolders: new Map(),
    };
    const describe = async (conversation: Conversation) => {
      const session = describeConversation(await readCopies(conversation, reading), conversation.parent);
      return { ...session, relocate: relocateHint(session, options.platform, folders) };
    };
    const described: ListedSession[] = [];
    let done = 0;
    try {
      for await (const session of mapInOrder(conversations, options.concurrency ?? 16, describe)) {
        options.onProgress?.((done += 1), conversations.length);
        // Slugs compare workspaces as Reasonix does: Windows spellings that differ in case are one folder.
        if (wanted === undefined || belongsTo(session, wanted, options.platform)) described.push(session);
      }
    } finally {
      pool.end();
    }
    yield* newestFirst(described);
  }
  return {
    warnings: found.warnings,
    sessions: sessions(),
    // Sessions of other workspaces may be there: the workspace looked for is said.
    nothingFound: async () =>
      new SessionNotFoundError(
        `${options.workspace === undefined ? 'no sessions found' : `no sessions of workspace ${options.workspace} found`} (${await rootsRead(roots)})`,
      ),
  };
}

function belongsTo(session: ListedSession, slug: string, platform: Platform): boolean {
  if (session.workspace !== null && sameSlug(workspaceSlug(session.workspace, platform), slug, platform)) return true;
  return session.copies.some((copy) => sameSlug(copy.slug, slug, platform));
}

/** Newest last change first (times compared as instants: Reasonix writes up to nine fraction digits); unknown times last. */
function newestFirst(sessions: ListedSession[]): ListedSession[] {
  // Each time parsed once, not at every comparison.
  const instant = new Map(
    sessions.map((session) => [
      session,
      session.updatedAt === null ? Number.NEGATIVE_INFINITY : Date.parse(session.updatedAt) || Number.NEGATIVE_INFINITY,
    ]),
  );
  return sessions.sort(
    (a, b) =>
      instant.get(b)! - instant.get(a)! ||
      (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') ||
      a.id.localeCompare(b.id),
  );
}
