import { isAbsolute, normalize, relative, resolve } from 'node:path';
import { NotRegularFileError, OverwriteRefusedError, RxError, SessionNotFoundError } from '../errors/index.js';
import { describeRoots, rootsRead } from '../store/listing/find-session.js';
import { defaultCacheDir } from '../store/listing/cache-dir.js';
import { openSession } from '../store/open-session.js';
import { pathsOf, type Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';
import { sameSlug, workspaceSlug } from '../store/roots/workspace-slug.js';
import { storeFolder, type SlugFolders } from '../store/roots/store-folder.js';
import { matchText, parseQuery, type Query } from './query.js';
import { scoreText, snippetOf } from './rank.js';
import type { SearchHit, SearchKind } from './search-hit.js';
import { checkSearchInput } from './search-input.js';
import { asSearched } from './documents.js';
import { ENGINE_ERROR_CODE, IndexContradictionError, isEngineError } from './index-connection.js';
import { indexDecides, SearchIndex } from './search-index.js';
import { beginSearchCheck, checkedForSearch, forgetSearchWatch } from './search-watch.js';
import { searchSources, type SearchSource } from './search-sources.js';

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
  /** Each hit carries up to this many messages before and after it (`around`). Every hit carries its place (`index`). */
  around?: number;
  /**
   * `false`: hits carry no `index` (null). Default true: each hit is placed as `cat` numbers its message,
   * from places the index keeps as it reads the records (no session is read again to place a hit).
   */
  messageIndex?: boolean;
  /** `false`: read the stores directly instead of the index (same hits, slower). Default true. */
  index?: boolean;
  /** Where the index lives (default: rxstore's cache folder, as the summary cache). */
  cacheDir?: string;
  /** Called once before the first session is read (none when the index is up to date): a process can tune itself for reading logs. */
  beforeReading?: () => void;
  /** Told once when another process updates the index and this search waits for it (five minutes at most). */
  onWaiting?: () => void;
  /** Told after each session the index reads: how many are read, of how many changed. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Told, before the first hit, of what was not searched whole, hit or not: each session (of those
   * `session` and `workspace` select) read only up to damage, and each store that could not be read.
   * Without it, a damaged session with no hit before its damage would go unsaid.
   */
  onNotWhole?: (part: NotSearchedWhole) => void;
}

/**
 * What a search could not search whole: a session up to `damage` (in words, its code first), or a store, or the
 * index's cache folder that could not be written (`warning`).
 */
export type NotSearchedWhole = { path: string; sessionId: string; damage: string } | { warning: string };

/** How a search reads the index: as asked, and whether a watch saw no content-store file change since the last. */
type IndexedOptions = SearchOptions & { contentUnchanged?: boolean };

/** A message beside a hit, given with `around`. */
export interface AroundMessage {
  /** Its place among the messages a person reads (the person view, as `cat` prints them), from 0. */
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
 * to date first (a first search builds it), or with `index: false` through the same index built in
 * memory from the stores, so both give the same hits in the same order. Hits come best first: the
 * exact query phrase first, then BM25, lifted by how much of their session matches. A query that is
 * empty (with no `file`), a pattern that does not compile, or an option no search takes (an invalid Date, a
 * `limit` or `around` that is no whole number, an unknown kind, an empty list of kinds or an empty name) is an
 * `InvalidInputError`.
 */
export async function* search(text: string, options: SearchOptions): AsyncGenerator<FoundHit> {
  checkSearchInput(text, options);
  // Searched as the texts are kept (`asSearched`): a NUL, a lone surrogate.
  const query =
    text.trim() === '' && options.file !== undefined
      ? undefined
      : await parseQuery(asSearched(text), { regex: options.regex });
  const { hits, places, read } = await checkedHits(query, options);
  if (places !== undefined) {
    for (const [at, hit] of hits.entries()) yield { ...hit, index: places[at]! };
    return;
  }
  if (options.messageIndex === false && options.around === undefined) {
    for (const hit of hits) yield { ...hit, index: null };
    return;
  }
  for (const hit of hits) yield placed(hit, read.get(hit.path)?.messages ?? [], options.around);
}

/**
 * The hits, after the files the search rests on were checked: by a stat of each, or, in a process that
 * searched the same index before, by a watch that saw none of them change (`beginSearchCheck`).
 */
async function checkedHits(
  query: Query | undefined,
  options: SearchOptions,
): ReturnType<typeof hitsWithOrWithoutIndex> {
  const key =
    options.index === false
      ? undefined
      : // Relative roots are read from the working folder: another one is another search.
        JSON.stringify([
          process.cwd(),
          options.roots,
          options.platform,
          resolve(options.cacheDir ?? defaultCacheDir()),
        ]);
  const check = key === undefined ? undefined : await beginSearchCheck(key);
  try {
    const { sources, warnings, looked, listed } = await searchSources(
      options.roots,
      options.platform,
      check?.unchanged,
    );
    // Nothing to search, a session no id starts with, a workspace no session is of: a mistake to say, as ls
    // says it, not a search that found nothing (ids are matched as typed).
    if (sources.length === 0 && warnings.length === 0)
      throw new SessionNotFoundError(`no sessions found (${await rootsRead(options.roots)})`);
    if (options.session !== undefined && !sources.some((source) => source.id.startsWith(options.session!)))
      throw new SessionNotFoundError(
        `no session matches ${JSON.stringify(options.session)} (${describeRoots(options.roots)})`,
      );
    if (
      options.workspace !== undefined &&
      !sources.some((source) => inWorkspace(source, options.workspace!, options.platform))
    )
      throw new SessionNotFoundError(
        `no sessions of workspace ${options.workspace} found (${await rootsRead(options.roots)})`,
      );
    for (const warning of warnings) options.onNotWhole?.({ warning });
    const found = await hitsWithOrWithoutIndex(query, sources, { ...options, contentUnchanged: check?.unchanged });
    if (key !== undefined && check !== undefined && found.contentFiles !== undefined)
      checkedForSearch(key, check, { paths: [...looked, ...found.contentFiles], listed });
    return found;
  } catch (error) {
    forgetSearchWatch();
    throw error;
  }
}

/**
 * The hits through the index; where its cache folder may not be written (read-only, another user's), straight
 * from the stores, as `index: false` gives them, after a warning: the index is a cache, never a reason to fail.
 */
async function hitsWithOrWithoutIndex(
  query: Query | undefined,
  sources: readonly SearchSource[],
  options: IndexedOptions,
): ReturnType<typeof indexedHits> {
  if (options.index === false) return indexedHits(query, sources, options);
  try {
    return await indexedHits(query, sources, options);
  } catch (error) {
    const reason = unusableReason(error);
    if (reason === undefined) throw error;
    const folder = options.cacheDir ?? defaultCacheDir();
    // Coded as every problem line is: the error's code, else the file system's (a system error not yet coded).
    const code = error instanceof RxError ? error.code : 'RX_FILE_SYSTEM';
    options.onNotWhole?.({
      warning: `${code}: the search index in ${folder} cannot be ${reason}; searched the stores directly`,
    });
    return indexedHits(query, sources, { ...options, index: false });
  }
}

/**
 * Why the index cannot be used, when it is its folder's doing: the file system refused a write (a read-only
 * folder or file, or one of another user), or a file stands in its place that rxstore did not make.
 */
function unusableReason(error: unknown): string | undefined {
  if (error instanceof NotRegularFileError || error instanceof OverwriteRefusedError) return `used (${error.message})`;
  const code = error instanceof RxError ? error.data?.errno : (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'written (permission denied)';
  if (code === 'EROFS') return 'written (read-only file system)';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'written (no space left on device)';
  // What SQLite said twice, the index built again between (`indexedHits`): a full disk, an I/O error.
  if (code === ENGINE_ERROR_CODE && error instanceof Error) return `used (${error.message})`;
  return undefined;
}

/**
 * The hits, and the message ids of their sessions, from the index brought up to date (or from one
 * in memory). The index is a cache: one SQLite finds damaged mid-search (a file written over by
 * something else) is removed and built again, once; what fails a second time is said with its path.
 */
async function indexedHits(
  query: Query | undefined,
  sources: readonly SearchSource[],
  options: IndexedOptions,
): Promise<{
  hits: SearchHit[];
  /** The content-store files the index file's sessions came from; undefined for an index in memory. */
  contentFiles: string[] | undefined;
  /** Each hit's place among its session's messages, as `cat` numbers them (when asked for without `around`). */
  places: (number | null)[] | undefined;
  read: Map<string, PersonMessages>;
}> {
  const inMemory = options.index === false;
  let rebuilt = false;
  let reread = false;
  for (;;) {
    const index = inMemory
      ? await SearchIndex.inMemory()
      : await SearchIndex.open(options.cacheDir ?? defaultCacheDir(), options.onWaiting);
    let failed = true;
    let damaged: unknown;
    try {
      // Every session is read, straight from the stores too: BM25 weighs a word by how many of all the texts hold it,
      // so hits are scored and ordered as through the index only when the index holds the same texts.
      await index.update(sources, options.onProgress, options.beforeReading, undefined, options.contentUnchanged);
      const placed = options.messageIndex !== false && options.around === undefined;
      // A file asked for by its path in a moved project's new folder names what its sessions touched in the old one.
      const moved =
        options.file === undefined ? new Map<string, string>() : await movedFolders(index, sources, options);
      const { hits: asIndexed, places } = index.reading(() => {
        const hits = found(index, query, sources, options, moved);
        // Kept in the index as the records were read: no session is read again to place its hits.
        const places = placed
          ? hits.map((hit) => (hit.messageId === null ? null : index.placeOf(hit.path, hit.messageId)))
          : undefined;
        return { hits, places };
      });
      const hits = await resumedWorkspaces(asIndexed, sources, options.platform);
      // The transcripts read whole for the messages around the hits (each read now, not kept from an earlier search).
      const read = new Map<string, PersonMessages>();
      if (options.around !== undefined)
        for (const path of new Set(hits.map((hit) => hit.path))) read.set(path, await personMessagesOf(path));
      // A log that grew is read on from its cursor: damage further back shows only to a whole read (`around`'s). A
      // session such a read found damaged where the index holds none is read again from the start, once.
      const known = index.damaged();
      const unseen = [...read].filter(([path, { damage }]) => damage !== undefined && !known.has(path));
      failed = false;
      if (unseen.length > 0 && !inMemory && !reread) {
        index.forget(unseen.map(([path]) => path));
        reread = true;
        continue;
      }
      if (options.onNotWhole) for (const part of damagedIn(index, sources, options)) options.onNotWhole(part);
      return { hits, places, read, contentFiles: inMemory ? undefined : index.contentFiles() };
    } catch (error) {
      if (inMemory || !isEngineError(error)) throw error;
      // A full disk is not damage: the index is kept as it is, for the search once there is room.
      const said = index.engineErrorSaid(error);
      if (said.data.errno === 'ENOSPC') throw said;
      damaged = error;
    } finally {
      await index.close(failed, damaged !== undefined);
    }
    if (rebuilt) throw index.engineErrorSaid(damaged);
    rebuilt = true;
  }
}

/**
 * Each hit's workspace as `ls` shows it: where a session names another folder than the one whose store it
 * sits under (its sessions relocated), the folder of its store's slug (`storeFolder`).
 */
async function resumedWorkspaces(
  hits: SearchHit[],
  sources: readonly SearchSource[],
  platform: Platform,
): Promise<SearchHit[]> {
  const slugs = new Map(sources.map((source) => [source.path, source.slug]));
  const folders: SlugFolders = new Map();
  const resumedFrom = new Map<string, Promise<string | undefined>>();
  for (const hit of hits)
    if (!resumedFrom.has(hit.path))
      resumedFrom.set(hit.path, storeFolder(hit.workspace, slugs.get(hit.path) ?? null, platform, folders));
  return Promise.all(
    hits.map(async (hit) => {
      const folder = await resumedFrom.get(hit.path);
      return folder === undefined ? hit : { ...hit, workspace: folder };
    }),
  );
}

/**
 * The folder each session of the index is resumed from where that is not the folder it names (its project moved
 * and its sessions relocated: `storeFolder`), by path.
 */
async function movedFolders(
  index: SearchIndex,
  sources: readonly SearchSource[],
  options: SearchOptions,
): Promise<Map<string, string>> {
  const slugs = new Map(sources.map((source) => [source.path, source.slug]));
  const sessions = index.reading(() => [...index.sessions().values()]);
  const folders: SlugFolders = new Map();
  const moved = new Map<string, string>();
  for (const session of sessions) {
    const folder = await storeFolder(session.workspace, slugs.get(session.path) ?? null, options.platform, folders);
    if (folder !== undefined) moved.set(session.path, folder);
  }
  return moved;
}

/** The sessions of those `session` and `workspace` select that the index read only up to damage. */
function damagedIn(
  index: SearchIndex,
  sources: readonly SearchSource[],
  options: SearchOptions,
): { path: string; sessionId: string; damage: string }[] {
  const damaged = index.damaged();
  return sources
    .filter((source) => damaged.has(source.path))
    .filter((source) => options.session === undefined || source.id.startsWith(options.session))
    .filter((source) => options.workspace === undefined || inWorkspace(source, options.workspace, options.platform))
    .map((source) => ({ path: source.path, sessionId: source.id, damage: damaged.get(source.path)! }));
}

/** The hits the index gives, ranked and cut there, each with its snippet. */
function found(
  index: SearchIndex,
  query: Query | undefined,
  sources: readonly SearchSource[],
  options: SearchOptions,
  moved: ReadonlyMap<string, string>,
): SearchHit[] {
  const slugs = new Map(sources.map((source) => [source.path, source.slug]));
  const previews = new Map(sources.map((source) => [source.path, source.preview]));
  const sessionsOf = (paths?: readonly string[]) =>
    new Map<string, Session>(
      [...index.sessions(paths, previews)].map(([path, session]) => [
        path,
        { ...session, slug: slugs.get(path) ?? null },
      ]),
    );
  const narrowed = options.session !== undefined || options.workspace !== undefined || options.file !== undefined;
  // Every session is looked at only to narrow by them; otherwise only the sessions hit are read back.
  let sessions = narrowed ? sessionsOf() : new Map<string, Session>();
  let chosen = [...sessions.values()];
  if (options.session !== undefined) chosen = chosen.filter((session) => session.id.startsWith(options.session!));
  if (options.workspace !== undefined)
    chosen = chosen.filter((session) => inWorkspace(session, options.workspace!, options.platform));
  if (options.file !== undefined) {
    const touched = new Set(
      index
        .fileDocuments()
        .filter((document) =>
          touches(document.text, sessions.get(document.path)!, options.file!, moved.get(document.path)),
        )
        .map((document) => document.path),
    );
    chosen = chosen.filter((session) => touched.has(session.path));
  }
  // The trigram index ignores case and decides a word or phrase of three characters or more: a capital, a
  // shorter or a much longer one, or a pattern is checked on the text (`indexDecides`).
  const decided = query !== undefined && !options.regex && !query.caseSensitive && query.phrases.every(indexDecides);
  const check =
    query === undefined
      ? (text: string, path: string) => (touches(text, sessions.get(path)!, options.file!, moved.get(path)) ? 1 : null)
      : decided
        ? undefined
        : (text: string) => {
            const matches = matchText(query, text);
            return matches ? scoreText(query, text, matches) : null;
          };
  const documents = index.find({
    phrases: query?.phrases ?? [],
    // A query of one phrase has no whole to rank by apart from its check: every hit holds it.
    whole: query?.whole && query.terms.length > 1 ? (text) => query.whole!(text).length > 0 : undefined,
    check,
    kinds: query === undefined ? ['file'] : selectedKinds(options.kinds),
    tool: options.tool,
    paths: narrowed ? chosen.map((session) => session.path) : undefined,
    since: options.since && indexedTime(options.since),
    until: options.until && indexedTime(options.until),
    limit: options.limit,
  });
  if (!narrowed) sessions = sessionsOf([...new Set(documents.map((document) => document.path))]);
  return documents.map((document) => {
    const session = sessions.get(document.path);
    if (session === undefined)
      throw new IndexContradictionError(`a hit of ${document.path}, which it holds no session for`);
    const matches =
      query === undefined ? [[[0, document.text.length] as [number, number]]] : (matchText(query, document.text) ?? []);
    return {
      sessionId: session.id,
      title: session.title,
      workspace: session.workspace,
      store: session.store,
      path: session.path,
      messageId: document.messageId,
      key: document.recordKey,
      role: document.role,
      kind: document.kind,
      tool: document.tool,
      exitCode: document.exitCode,
      time: document.time,
      score: document.score,
      ...snippetOf(document.text, matches),
      damage: session.damage,
    };
  });
}

/**
 * A time as the index's times compare, as text: theirs are ISO times of years 0 to 9999, which `toISOString`
 * writes otherwise past them (`+010000-01-01…`, `-000001-…`), so a later year would sort before them. One past
 * 9999 is after all of them, one before year 0 before all.
 */
function indexedTime(time: Date): string {
  const year = time.getUTCFullYear();
  return year > 9999 ? '~' : year < 0 ? '' : time.toISOString();
}

/**
 * Whether a file document names the file asked for: the same path, its end, or the same path from the session's
 * workspace, or from the folder it moved to (`moved`: a path touched in the old folder is that path in the new
 * one). Paths are compared normalised, as resolving does to absolute ones: `./notes/plan.txt`,
 * `notes//plan.txt` and `notes/./plan.txt` name `notes/plan.txt`.
 */
function touches(text: string, session: Session, file: string, moved?: string): boolean {
  const asked = normalize(file);
  const workspace = session.workspace;
  return text.split('\n').some((path) => {
    const touched = normalize(path);
    if (touched === asked || touched.endsWith(`/${asked}`)) return true;
    if (!isAbsolute(file) || workspace === null) return false;
    const absolute = resolve(workspace, path);
    if (absolute === resolve(file)) return true;
    const within = relative(workspace, absolute);
    return (
      moved !== undefined && !within.startsWith('..') && !isAbsolute(within) && resolve(moved, within) === resolve(file)
    );
  });
}

function inWorkspace(session: Pick<Session, 'workspace' | 'slug'>, workspace: string, platform: Platform): boolean {
  // `/a/b/`, `/a/./b` and `/a/b` are one folder: its slug is the plain path's.
  const paths = pathsOf(platform);
  const plain = paths.normalize(workspace);
  const folder = plain.endsWith(paths.sep) && paths.parse(plain).root !== plain ? plain.slice(0, -1) : plain;
  const slug = workspaceSlug(folder, platform);
  if (session.workspace !== null && sameSlug(workspaceSlug(session.workspace, platform), slug, platform)) return true;
  return session.slug !== null && sameSlug(session.slug, slug, platform);
}

type PlacedMessage = { messageId: string | null; role: string; text: string };

/** A session's messages as a person reads them, up to damage, and the damage (its code first) when there is some. */
type PersonMessages = { messages: PlacedMessage[]; damage: string | undefined };

/**
 * A session's messages as a person reads them (its person view: what `cat` prints and `view` shows, not
 * the host's session-context messages nor local-only records, which no hit is in), read once for all
 * its hits; up to damage when there is some.
 */
async function personMessagesOf(path: string): Promise<PersonMessages> {
  const messages: PlacedMessage[] = [];
  try {
    for await (const message of (await openSession(path)).personView())
      messages.push({ messageId: message.id ?? null, role: message.role, text: message.content });
  } catch (error) {
    if (!(error instanceof RxError)) throw error;
    // Damage: the messages before it are still there to place a hit by.
    return { messages, damage: `${error.code}: ${error.message}` };
  }
  return { messages, damage: undefined };
}

/** The hit's place among its session's messages (what `cat` prints it as), and the messages around it when asked. */
function placed(hit: SearchHit, messages: readonly PlacedMessage[], around: number | undefined): FoundHit {
  const found = hit.messageId === null ? -1 : messages.findIndex((message) => message.messageId === hit.messageId);
  const index = found < 0 ? null : found;
  if (around === undefined) return { ...hit, index };
  if (index === null) return { ...hit, index, around: [] };
  const from = Math.max(0, index - around);
  return {
    ...hit,
    index,
    around: messages
      .slice(from, index + around + 1)
      .map((message, offset) => ({ ...message, index: from + offset, hit: from + offset === index })),
  };
}

/**
 * The kinds of text that `kinds` selects: a shell call's arguments are its command line, kept as a `command`
 * text, so `tool-input` (every call's arguments) takes the `command` texts too.
 */
function selectedKinds(kinds: readonly SearchKind[] | undefined): readonly SearchKind[] | undefined {
  return kinds?.includes('tool-input') && !kinds.includes('command') ? [...kinds, 'command'] : kinds;
}
