import { isAbsolute, resolve } from 'node:path';
import { InvalidInputError } from '../errors/index.js';
import { defaultCacheDir } from '../store/listing/cache-dir.js';
import { openSession } from '../store/open-session.js';
import type { Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';
import { sameSlug, workspaceSlug } from '../store/roots/workspace-slug.js';
import { messageText } from '../session/replay/message.js';
import { documentsOf, type SearchDocument } from './documents.js';
import { matchText, parseQuery, type Query } from './query.js';
import { scoreText, sessionWeight, snippetOf } from './rank.js';
import { SEARCH_KINDS, type SearchHit, type SearchKind } from './search-hit.js';
import { SearchIndex } from './search-index.js';
import { damageOf, searchSources, type SearchSource } from './search-sources.js';

/** What `search` searches, how, and how many hits it gives. */
export interface SearchOptions {
  /** The roots to search (`machineRoots().roots.roots`), and whose path rules apply. */
  roots: readonly ReadRoot[];
  platform: Platform;
  /** The query is one regular expression (RE2 syntax: linear time, no backreferences). */
  regex?: boolean;
  /** Only texts of these kinds (default: every kind). */
  kinds?: readonly SearchKind[];
  /** Only a call, its result, a command or a file of this tool. */
  tool?: string;
  /** Only sessions that touched this file (a path as a tool was given it, or its end); with no query, the touches themselves. */
  file?: string;
  /** Only sessions of this workspace (an absolute path): the one they name, or the one whose slug they sit under. */
  workspace?: string;
  /** Only sessions whose id starts with this. */
  session?: string;
  /** Only messages at or after, and before, these times. */
  since?: Date;
  until?: Date;
  /** At most this many hits (default: all). */
  limit?: number;
  /** Each hit carries up to this many messages before and after it (`around`), and its place (`index`). */
  around?: number;
  /** `false`: read the stores directly instead of the index (same hits, slower). Default true. */
  index?: boolean;
  /** Where the index lives (default: rxstore's cache folder, as the summary cache). */
  cacheDir?: string;
  /** Told after each session the index reads: how many are read, of how many changed. */
  onProgress?: (done: number, total: number) => void;
}

/** A message beside a hit, given with `around`. */
export interface AroundMessage {
  /** Its place in the session's canonical transcript, from 0. */
  index: number;
  /** Its id, where Reasonix gave it one. */
  messageId: string | null;
  /** `user`, `assistant`, `tool` or `system`. */
  role: string;
  /** What it says (a person's prompt as typed). */
  text: string;
  /** This is the hit's own message. */
  hit: boolean;
}

/** A search hit, with the messages around it when `around` was asked for. */
export type FoundHit = SearchHit & { index: number | null; around?: AroundMessage[] };

interface Session {
  path: string;
  id: string;
  store: SearchSource['store'];
  title: string | null;
  workspace: string | null;
  slug: string | null;
  damage: string | null;
}

/**
 * Searches every session under the roots: words ANDed, `"phrases"` contiguous, or a `regex`; case
 * matters only when the query has a capital. Through an index kept in the cache folder, brought up
 * to date first (a first search builds it), or with `index: false` straight from the stores, with
 * the same hits. Hits come best first: the exact query phrase first, then by term frequency, lifted
 * by how much of their session matches. A query that is empty (with no `file`) or a pattern that
 * does not compile is an `InvalidInputError`.
 */
export async function* search(text: string, options: SearchOptions): AsyncGenerator<FoundHit> {
  const query = text.trim() === '' && options.file !== undefined ? undefined : parseQuery(text, { regex: options.regex });
  for (const kind of options.kinds ?? []) if (!SEARCH_KINDS.includes(kind)) throw new InvalidInputError(`unknown kind ${JSON.stringify(kind)}: one of ${SEARCH_KINDS.join(', ')}`);
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit > 0)) throw new InvalidInputError('limit must be a whole number above 0');
  const { sources } = await searchSources(options.roots, options.platform);
  const found = options.index === false ? await scanStores(query, sources, options) : await searchIndex(query, sources, options);
  const hits = ranked(found);
  const wanted = options.limit === undefined ? hits : hits.slice(0, options.limit);
  for (const hit of wanted) yield options.around === undefined ? { ...hit, index: null } : await withAround(hit, options.around);
}

type Candidate = SearchDocument & { session: Session };

/** Through the index: brought up to date, then asked for the documents that hold every word. */
async function searchIndex(query: Query | undefined, sources: readonly SearchSource[], options: SearchOptions): Promise<SearchHit[]> {
  const index = await SearchIndex.open(options.cacheDir ?? defaultCacheDir());
  try {
    await index.update(sources, options.onProgress);
    const slugs = new Map(sources.map((source) => [source.path, source.slug]));
    const sessions = new Map([...index.sessions()].map(([path, session]) => [path, { ...session, slug: slugs.get(path) ?? null }]));
    const touched = options.file === undefined ? undefined : new Set<string>();
    if (touched) for (const document of index.candidates([], ['file'])) if (touches(document, sessions.get(document.path)!, options.file!)) touched.add(document.path);
    const kinds = query === undefined ? ['file'] : options.kinds;
    const hits: SearchHit[] = [];
    for (const document of index.candidates(query?.indexWords ?? [], kinds)) {
      const hit = hitOf(query, { ...document, session: sessions.get(document.path)! }, touched, options);
      if (hit) hits.push(hit);
    }
    return hits;
  } finally {
    await index.close();
  }
}

/** Straight from the stores: every session's records read whole, as the index would hold them. */
async function scanStores(query: Query | undefined, sources: readonly SearchSource[], options: SearchOptions): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (const source of sources) {
    if (options.session !== undefined && !source.id.startsWith(options.session)) continue;
    const session: Session = { path: source.path, id: source.id, store: source.store, title: null, workspace: null, slug: source.slug, damage: null };
    const documents: SearchDocument[] = [];
    try {
      const opened = await openSession(source.path);
      for await (const record of opened.records()) {
        session.title = record.title;
        session.workspace = record.workspace;
        documents.push(...documentsOf(record));
      }
    } catch (error) {
      session.damage = damageOf(error);
    }
    session.workspace ??= source.workspace;
    const touched = options.file === undefined ? undefined : new Set<string>();
    if (touched && documents.some((document) => document.kind === 'file' && touches(document, session, options.file!))) touched.add(session.path);
    for (const document of documents) {
      if (query === undefined ? document.kind !== 'file' : options.kinds && !options.kinds.includes(document.kind)) continue;
      const hit = hitOf(query, { ...document, session }, touched, options);
      if (hit) hits.push(hit);
    }
  }
  return hits;
}

/** Whether a file document names the file asked for: the same path, its end, or the same path from the session's workspace. */
function touches(document: SearchDocument, session: Session, file: string): boolean {
  return document.text.split('\n').some((path) => {
    if (path === file || path.endsWith(`/${file}`)) return true;
    return isAbsolute(file) && session.workspace !== null && resolve(session.workspace, path) === resolve(file);
  });
}

/** A candidate that passes every filter and matches every term, as a hit (not yet weighed by its session). */
function hitOf(query: Query | undefined, candidate: Candidate, touched: Set<string> | undefined, options: SearchOptions): SearchHit | undefined {
  const { session } = candidate;
  if (options.session !== undefined && !session.id.startsWith(options.session)) return undefined;
  if (options.tool !== undefined && candidate.tool !== options.tool) return undefined;
  if (touched && !touched.has(session.path)) return undefined;
  if (query === undefined && !touches(candidate, session, options.file!)) return undefined;
  if (options.workspace !== undefined && !inWorkspace(session, options.workspace, options.platform)) return undefined;
  const time = Date.parse(candidate.time);
  if (options.since && !(time >= options.since.getTime())) return undefined;
  if (options.until && !(time < options.until.getTime())) return undefined;
  const matches = query === undefined ? [[[0, candidate.text.length] as [number, number]]] : matchText(query, candidate.text);
  if (!matches) return undefined;
  const score = query === undefined ? 1 : scoreText(query, candidate.text, matches);
  return {
    sessionId: session.id,
    title: session.title,
    workspace: session.workspace,
    store: session.store,
    path: session.path,
    messageId: candidate.messageId,
    key: candidate.recordKey,
    role: candidate.role,
    kind: candidate.kind,
    tool: candidate.tool,
    exitCode: candidate.exitCode,
    time: candidate.time,
    score,
    ...snippetOf(candidate.text, matches),
    damage: session.damage,
  };
}

function inWorkspace(session: Session, workspace: string, platform: Platform): boolean {
  const slug = workspaceSlug(workspace, platform);
  if (session.workspace !== null && sameSlug(workspaceSlug(session.workspace, platform), slug, platform)) return true;
  return session.slug !== null && sameSlug(session.slug, slug, platform);
}

/** Best first: each hit's score lifted by its session's count of hits; ties in a fixed order, whichever way the hits were found. */
function ranked(hits: SearchHit[]): SearchHit[] {
  const perSession = new Map<string, number>();
  for (const hit of hits) perSession.set(hit.path, (perSession.get(hit.path) ?? 0) + 1);
  const weighed = hits.map((hit) => ({ ...hit, score: Math.round(hit.score * sessionWeight(perSession.get(hit.path)!) * 1e4) / 1e4 }));
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return weighed.sort((a, b) => b.score - a.score || order(b.time, a.time) || order(a.path, b.path) || order(a.key, b.key) || order(a.kind, b.kind));
}

/** The hit's place in its session's transcript, and the messages around it. */
async function withAround(hit: SearchHit, around: number): Promise<FoundHit> {
  const messages: { messageId: string | null; role: string; text: string }[] = [];
  try {
    for await (const { message } of (await openSession(hit.path)).transcript()) messages.push({ messageId: message.id ?? null, role: message.role, text: messageText(message) });
  } catch {
    // Damage: the messages before it are still there to show.
  }
  const index = hit.messageId === null ? -1 : messages.findIndex((message) => message.messageId === hit.messageId);
  if (index < 0) return { ...hit, index: null, around: [] };
  const from = Math.max(0, index - around);
  return { ...hit, index, around: messages.slice(from, index + around + 1).map((message, offset) => ({ ...message, index: from + offset, hit: from + offset === index })) };
}
