import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { SessionStatusSchema } from '../../session/reading/read-session.js';
import { defaultCacheDir } from './cache-dir.js';
import type { SessionCopy } from './session-copy.js';
import { WorkspaceSourceSchema } from './summarise-copy.js';
import { TitleSourceSchema } from './title-text.js';
import { ResumePointSchema, type ResumePoint } from './resume-point.js';
import type { ContentStamp, CopyRead, CopySummary } from './summarise-copy.js';
import { filesStamp, statLine, statOrCode } from '../../fs/files-stamp.js';

/**
 * What listing learnt of each copy, kept between runs like git's index: a copy whose files have
 * the same identity (size, modification and change times in nanoseconds, inode, and what its
 * manifest and header say) is not read again, and a v4 log that only grew is read from where the last read stopped
 * (`ResumePoint`: the cursor, checked against the bytes before it, and the tally so far). Kept in the user's cache folder, never in Reasonix's; replaced
 * atomically, so concurrent runs cost at most a re-read; a file that is not one rxstore wrote, or
 * an entry that does not parse, is dropped, never trusted.
 */
const CACHE_VERSION = 2;

/** A copy's summary as the cache keeps it (`CopySummary`): every field checked when it is read back. */
const SummarySchema = z.object({
  status: SessionStatusSchema,
  problem: z.string().nullable(),
  messages: z.number().int().nonnegative(),
  updatedAt: z.string().nullable(),
  title: z.string().nullable(),
  titleFrom: TitleSourceSchema.nullable(),
  workspace: z.string().nullable(),
  workspaceFrom: WorkspaceSourceSchema.nullable(),
  payloadRefs: z.number().int().nonnegative(),
}) satisfies z.ZodType<CopySummary>;
/** An entry; its resume point is checked only when it is used (most lookups find the files unchanged). */
const EntrySchema = z.object({
  identity: z.string(),
  summary: SummarySchema,
  resume: z.unknown().optional(),
  content: z.object({ files: z.array(z.string()), stamp: z.string() }).optional(),
});
type Entry = z.infer<typeof EntrySchema>;
// Where the cache lives is said apart, so a command's help names it without loading the cache.
export { defaultCacheDir };

const CacheFileSchema = z.object({ version: z.literal(CACHE_VERSION), entries: z.record(z.string(), z.unknown()) });

/** What listing learned of each session, kept in the user's cache folder and keyed by the log's identity, so an unchanged session costs a stat. */
export class SummaryCache {
  /** Entries as the file holds them, each checked when it is first looked up: a listing of a few sessions checks a few. */
  private readonly entries = new Map<string, unknown>();
  private changed = false;

  private constructor(readonly file: string) {}

  /** The cache in `dir` (the user's cache folder by default); an unreadable or foreign file is an empty cache. */
  static async open(dir: string = defaultCacheDir()): Promise<SummaryCache> {
    const cache = new SummaryCache(join(dir, `summaries-v${CACHE_VERSION}.json`));
    // A cache is only ever a shortcut: one that cannot be read (missing, or any system error) is an empty cache.
    const parsed = CacheFileSchema.safeParse(parseJson(await readFile(cache.file, 'utf8').catch(() => undefined)));
    if (!parsed.success) return cache;
    for (const [path, value] of Object.entries(parsed.data.entries)) cache.entries.set(path, value);
    return cache;
  }

  /**
   * The identity of a copy's files now; the summary kept for it when they are as they were when
   * it was read; else where a read may go on from, if it was kept. Take it before reading a copy,
   * and keep what the read told under it: a log that grows during the read is then read again
   * next time (from the resume point, which `summariseAppended` checks), never trusted for bytes
   * not read.
   */
  async lookup(copy: SessionCopy): Promise<{ identity: string | undefined; summary: CopySummary | undefined; resume: ResumePoint | undefined; content: ContentStamp | undefined }> {
    const identity = identityOf(copy);
    const kept = this.entry(copy.path);
    // A content-store object a payload came from, changed or gone since: nothing kept holds, the copy is read whole.
    if (kept?.content && kept.content.stamp !== filesStamp(kept.content.files)) return { identity, summary: undefined, resume: undefined, content: undefined };
    const same = identity !== undefined && identity === kept?.identity;
    if (same) return { identity, summary: kept.summary, resume: undefined, content: kept.content };
    const resume = kept?.resume === undefined ? undefined : ResumePointSchema.safeParse(kept.resume);
    return { identity, summary: undefined, resume: resume?.success ? resume.data : undefined, content: kept?.content };
  }

  /** Keeps what reading a copy told, under the identity `lookup` gave before the read (none: not kept). */
  keep(copy: SessionCopy, identity: string | undefined, read: CopyRead): void {
    if (identity === undefined) return;
    this.entries.set(copy.path, { identity, summary: read.summary, ...(read.resume ? { resume: read.resume } : {}), ...(read.content ? { content: read.content } : {}) });
    this.changed = true;
  }

  /** Writes the cache if anything was kept (temp file and rename: a reader sees one whole file). */
  async save(): Promise<void> {
    if (!this.changed) return;
    await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, JSON.stringify({ version: CACHE_VERSION, entries: Object.fromEntries(this.entries) }));
    this.changed = false;
  }

  /** A kept entry, checked; one that does not parse is dropped, never trusted. */
  private entry(path: string): Entry | undefined {
    const value = this.entries.get(path);
    if (value === undefined) return undefined;
    const parsed = EntrySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.entries.delete(path);
    this.changed = true;
    return undefined;
  }
}

/**
 * The identity of a copy's files: what a stat said of its main file (log or transcript: `statLine`)
 * and what its metadata files said, as the copy was found (v4: the log's stat, manifest and header
 * taken together when it was found; otherwise the transcript's and its meta file's stat, taken now).
 * Undefined when the main file cannot be looked at.
 */
function identityOf(copy: SessionCopy): string | undefined {
  if (copy.format === 'v4') {
    // A metadata file the system would not let be read: nothing is known, so nothing is kept or trusted.
    if (copy.logStatLine === undefined || copy.manifest.state === 'unreadable' || copy.header.state === 'unreadable') return undefined;
    const hash = createHash('sha256').update(copy.logStatLine);
    for (const file of [copy.manifest, copy.header]) hash.update(file.state === 'ok' ? `ok\0${file.text}\0` : file.state === 'invalid' ? `invalid\0${file.reason}\0` : 'missing\0');
    return hash.digest('hex');
  }
  const stats = statOrCode(copy.path);
  if (typeof stats === 'string') return undefined;
  const meta = copy.format === 'jsonl' ? `${copy.path}.meta` : copy.path.replace(/\.jsonl$/, '.meta.json');
  return createHash('sha256').update(statLine(copy.path, stats)).update(filesStamp([meta])).digest('hex');
}

/** A cache file's JSON; anything that is not JSON is no cache at all. */
function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's SyntaxError, its only error.
    return undefined;
  }
}
