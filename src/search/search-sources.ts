import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { filesStamp, settledFilesStamp } from '../fs/files-stamp.js';
import { usedFilesOf, usedFilesStamp } from '../store/listing/used-files-stamp.js';
import { RxError } from '../errors/index.js';
import { findSessionCopies } from '../store/listing/find-session-copies.js';
import { groupConversations } from '../store/listing/group-conversations.js';
import type { SessionCopy } from '../store/listing/session-copy.js';
import { jsonlMetaPreview } from '../store/jsonl/jsonl-meta.js';
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
  /** What says the session changed since the index read it (`sourceStamp`). */
  stamp: string;
  /**
   * What a stat said of a v4 copy's log when it was listed (`statLine`, and its size); null for a
   * transcript, or a log that could not be looked at. A log whose stat changed but which did not
   * grow was rewritten in place: the index reads it again from the start, not from its cursor.
   */
  log: SourceLog | null;
  /** The preview a transcript's `.jsonl.meta` gives: an untitled session is called by it before its first message, as in `ls`. */
  preview: string | null;
}

/** A log as a stat of it said: its `statLine` and its size. */
export interface SourceLog {
  line: string;
  size: number;
}

type Sources = {
  sources: SearchSource[];
  warnings: string[];
  /** Every file and directory the listing looked at: while a stat of each says the same, so would the listing. */
  looked: readonly string[];
  /** Those of `looked` whose entries were listed. */
  listed: readonly string[];
};

/**
 * The last listing of this process, with what it looked at and their stamp: while a stat of each
 * says the same, the listing would say the same, so a search costs a stat per file the listing
 * read (three a session) instead of reading manifests and headers again.
 */
let lastListing: { key: string; stamp: string; listed: Sources } | undefined;

/**
 * Every conversation under the roots, each once (`groupConversations`, as `ls` groups them), by the copy `ls`
 * shows first. `unchanged`: nothing the last listing looked at changed since (a watch says so), so it is
 * given again without a stat.
 */
export async function searchSources(
  roots: readonly ReadRoot[],
  platform: Platform,
  unchanged = false,
): Promise<Sources> {
  const key = JSON.stringify([roots, platform]);
  const kept = lastListing;
  if (kept?.key === key && (unchanged || filesStamp(kept.listed.looked) === kept.stamp)) return kept.listed;
  const readFrom = BigInt(Date.now()) * 1_000_000n;
  const found = await findSessionCopies([...roots]);
  const sources = groupConversations(found, platform).map(({ copies: [copy] }) => ({
    id: copy.id,
    path: copy.path,
    store: copy.store,
    format: copy.format,
    workspace: workspaceNamed(copy),
    slug: copy.slug,
    stamp: sourceStamp(copy),
    log:
      copy.format === 'v4' && copy.logStatLine !== undefined && copy.logSize !== undefined
        ? { line: copy.logStatLine, size: copy.logSize }
        : null,
    preview: copy.format === 'jsonl' && copy.meta.state === 'ok' ? (jsonlMetaPreview(copy.meta.value) ?? null) : null,
  }));
  // What stands beside a log is in its session's stamp (`usedFilesStamp`): changed, the listing is made again.
  const looked = [
    ...found.looked,
    ...sources.flatMap((source) => (source.format === 'v4' ? usedFilesOf(source.path) : [])),
  ];
  const listed = { sources, warnings: found.warnings, looked, listed: found.listed };
  // A file changed while it was listed is listed again next time.
  const stamp = settledFilesStamp(looked, readFrom);
  lastListing = stamp === undefined ? undefined : { key, stamp, listed };
  return listed;
}

function workspaceNamed(copy: SessionCopy): string | null {
  if (copy.format === 'v4') return copy.header.state === 'ok' ? copy.header.value.cwd || null : null;
  if (copy.format === 'jsonl') return copy.meta.state === 'ok' ? copy.meta.value.workspace_root || null : null;
  return copy.meta.state === 'ok' ? copy.meta.value.workspace || null : null;
}

/**
 * What says a session changed. A v4 copy's from what the listing already looked at (the log's stat,
 * the manifest's and header's text) and what stands beside the log (`usedFilesStamp`: a few stats, as
 * `ls` makes). A transcript's from a stat of it and of its meta.
 */
function sourceStamp(copy: SessionCopy): string {
  if (copy.format === 'v4') {
    const hash = createHash('sha256').update(copy.logStatLine ?? 'no log\n');
    for (const file of [copy.manifest, copy.header])
      hash.update(file.state === 'ok' ? `ok\0${file.text}\n` : `${file.state}\n`);
    // A lock or identity Reasonix cannot use (or put right) changes the session's verdict, the log untouched.
    hash.update(usedFilesStamp(copy.path));
    return hash.digest('hex');
  }
  if (copy.format === 'jsonl') return filesStamp([copy.path, `${copy.path}.meta`]);
  return filesStamp([copy.path, join(dirname(copy.path), `${copy.id}.meta.json`)]);
}

/**
 * The one line a hit carries to say its session was read only up to damage. An error without a code is
 * rxstore's own failing, not the session's damage, and is said so: the session may well be sound.
 */
export function damageOf(error: unknown): string {
  if (error instanceof RxError) return `${error.code}: ${error.message}`;
  const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `not the session's damage but rxstore's own failing (${said}): the rest of it was not searched`;
}
