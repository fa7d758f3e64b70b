import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { RX_ERROR_FAMILIES, type RxErrorCode } from '../../errors/index.js';
import { SessionStatusSchema } from '../../session/verdict/read-session.js';
import { CacheFile } from './cache-file.js';
import { notOurs } from '../../fs/not-ours.js';
import { defaultCacheDir } from './cache-dir.js';
import type { SessionCopy } from './session-copy.js';
import { WorkspaceSourceSchema } from './summarise-copy.js';
import { TitleSourceSchema } from '../../session/replay/session-title.js';
import { ResumePointSchema, type ResumePoint } from './resume-point.js';
import type { CopyRead, CopySummary } from './summarise-copy.js';
import { contentChanged, ContentStampSchema, type ContentStamp } from './content-stamp.js';
import { filesStamp, statLine, statOrCode } from '../../fs/files-stamp.js';
import { usedFilesStamp } from './used-files-stamp.js';
import { transcriptSidecars } from '../jsonl/jsonl-sidecars.js';
import { GoesOnPastDamageSchema } from '../../session/reading/checkpoint-cover.js';

/**
 * What listing learnt of each copy, kept between runs like git's index: a copy whose files have
 * the same identity (size, modification and change times in nanoseconds, inode, and what its
 * manifest and header say) is not read again, and a v4 log that only grew is read from where the
 * last read stopped (`ResumePoint`: the cursor, checked against the bytes before it, and the tally
 * so far). Kept in the user's cache folder, never in Reasonix's, as two files: the summaries, read
 * by every listing, and the resume points, read only when a copy changed (most listings find none
 * changed, and the points are most of the bytes). Each is replaced atomically, so concurrent runs
 * cost at most a re-read; a file that is not one rxstore wrote, or an entry that does not parse,
 * is dropped, never trusted. A resume point checks itself against the log it is used on, so one
 * from another run than the summaries is used only where it still holds.
 */
/** One more whenever a rule of rxstore's verdicts changes: a summary judged by the old rules is judged again. */
// 6: a listed copy's problem has its code; 7: a JSONL transcript's summary says whether Reasonix takes a new turn in
// what it migrates it to; 8: a damaged copy says whether Reasonix goes on with it from its recovery checkpoint;
// 9: a transcript with a sidecar Reasonix waits on forever (a FIFO) is damaged; 10: so is one whose migration Reasonix
// refuses (a second result for one tool call); 11: a key written twice is applied as Go applies it, a history holding
// one message id twice keeps every message, a transcript's `.jsonl.meta` is read as Go reads it (its title), and a
// submission receipt is checked as Reasonix checks it; 12: a key holding a dot is no integer field inside another;
// 13: a time holding an escape is refused, as Go parses it as written; 14: a payload reference's size is an int64,
// and header.json's version is checked before its values, its time against Go's zero instant; 15: the storage identity
// is read as Go reads it (whether a recovery cache ahead of the log refuses the session); 16: the workspace line's
// path is unquoted as Go quoted it; 17: a repeated record no checkpoint goes on past; 18: a recovery cache ahead of
// the log refuses by the operations its checkpoint holds; 19: a record's zstd frame declaring a window over 8 MiB is
// damage; 20: a content store's own folder may be a link; 22: what reads as a torn tail before a recovery checkpoint's
// anchor is damage, a cache ahead of the log is trusted by the generation its checkpoint keeps, and the turn Reasonix
// closes as it opens the session is the one it holds open (the log's own `turn-finalize` batch refusing it).
const CACHE_VERSION = 22;

/** A copy's summary as the cache keeps it (`CopySummary`): every field checked when it is read back. */
const SummarySchema = z.object({
  status: SessionStatusSchema,
  problem: z.string().nullable(),
  problemCode: z.enum(Object.keys(RX_ERROR_FAMILIES) as [RxErrorCode, ...RxErrorCode[]]).nullable(),
  messages: z.number().int().nonnegative(),
  updatedAt: z.string().nullable(),
  title: z.string().nullable(),
  titleFrom: TitleSourceSchema.nullable(),
  workspace: z.string().nullable(),
  workspaceFrom: WorkspaceSourceSchema.nullable(),
  payloadRefs: z.number().int().nonnegative(),
  goesOnFrom: GoesOnPastDamageSchema.nullable(),
}) satisfies z.ZodType<CopySummary>;
/** An entry of the summaries file. */
const EntrySchema = z.object({
  identity: z.string(),
  summary: SummarySchema,
  content: ContentStampSchema.optional(),
});
type Entry = z.infer<typeof EntrySchema>;
// Where the cache lives is said apart, so a command's help names it without loading the cache.
export { defaultCacheDir };

/** What listing learned of each session, kept in the user's cache folder and keyed by the log's identity, so an unchanged session costs a stat. */
export class SummaryCache {
  private constructor(
    private readonly summaries: CacheFile,
    private readonly resumePoints: CacheFile,
  ) {}

  /** The summaries file, where `dir` holds it. */
  get file(): string {
    return this.summaries.file;
  }

  /** The cache in `dir` (the user's cache folder by default); an unreadable or foreign file is an empty cache. */
  static async open(dir: string = defaultCacheDir()): Promise<SummaryCache> {
    const cache = new SummaryCache(
      new CacheFile(join(dir, `summaries-v${CACHE_VERSION}.json`), CACHE_VERSION, EntrySchema),
      new CacheFile(join(dir, `resume-points-v${CACHE_VERSION}.json`), CACHE_VERSION, ResumePointSchema),
    );
    await cache.summaries.load();
    return cache;
  }

  /**
   * The identity of a copy's files now; the summary kept for it when they are as they were when
   * it was read; else where a read may go on from, if it was kept. Take it before reading a copy,
   * and keep what the read told under it: a log that grows during the read is then read again
   * next time (from the resume point, which `summariseAppended` checks), never trusted for bytes
   * not read.
   */
  async lookup(copy: SessionCopy): Promise<{
    identity: string | undefined;
    summary: CopySummary | undefined;
    resume: ResumePoint | undefined;
    content: ContentStamp | undefined;
  }> {
    const identity = identityOf(copy);
    const kept = this.entry(copy.path);
    // A content-store object a payload came from, changed or gone since: nothing kept holds, the copy is read whole.
    if (kept?.content && contentChanged(kept.content))
      return { identity, summary: undefined, resume: undefined, content: undefined };
    if (identity !== undefined && identity === kept?.identity)
      return { identity, summary: kept.summary, resume: undefined, content: kept.content };
    await this.resumePoints.load();
    const resume = ResumePointSchema.safeParse(this.resumePoints.get(copy.path));
    return { identity, summary: undefined, resume: resume.success ? resume.data : undefined, content: kept?.content };
  }

  /** Keeps what reading a copy told, under the identity `lookup` gave before the read (none: not kept). */
  keep(copy: SessionCopy, identity: string | undefined, read: CopyRead): void {
    if (identity === undefined) return;
    this.summaries.set(copy.path, {
      identity,
      summary: read.summary,
      ...(read.content ? { content: read.content } : {}),
    });
    if (read.resume) this.resumePoints.set(copy.path, read.resume);
    else this.resumePoints.delete(copy.path);
  }

  /**
   * Writes what was kept (each file whole, by temp file and rename), and removes what older versions of rxstore
   * kept. Each file is saved whatever became of the other. A cache file's name taken by something rxstore cannot
   * have made (a FIFO, a link, a folder, a hard link) is left as it is, and so is such a thing at an older
   * version's name. Rejects with the one error, or with an `AggregateError` of both files' errors.
   */
  async save(): Promise<void> {
    const saved = await Promise.allSettled([this.summaries.save(), this.resumePoints.save()]);
    const dir = dirname(this.summaries.file);
    const older = Array.from({ length: CACHE_VERSION - 1 }, (_, at) => [
      `summaries-v${at + 1}.json`,
      `resume-points-v${at + 1}.json`,
    ]).flat();
    await Promise.all(older.map((name) => removeOlderCache(join(dir, name))));
    const failed = saved.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
    // The folder neither could be written in is one error, said once.
    const errors = failed.filter((error, at) => failed.findIndex((other) => other.message === error.message) === at);
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'neither summary cache file was saved');
  }

  /** A kept entry, checked; one that does not parse is dropped, never trusted. */
  private entry(path: string): Entry | undefined {
    const value = this.summaries.get(path);
    if (value === undefined) return undefined;
    const parsed = EntrySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.summaries.delete(path);
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
    if (copy.logStatLine === undefined || copy.manifest.state === 'unreadable' || copy.header.state === 'unreadable')
      return undefined;
    const hash = createHash('sha256').update(copy.logStatLine);
    for (const file of [copy.manifest, copy.header])
      hash.update(
        file.state === 'ok'
          ? `ok\0${file.text}\0`
          : file.state === 'invalid'
            ? `invalid\0${file.reason}\0`
            : 'missing\0',
      );
    // The locks, identity and recovery checkpoint beside the log: each can change the verdict, the log untouched.
    hash.update(usedFilesStamp(copy.path));
    return hash.digest('hex');
  }
  const stats = statOrCode(copy.path);
  if (typeof stats === 'string') return undefined;
  // A transcript's sidecars, each of which may block Reasonix's resume: the meta file among them.
  const sidecars =
    copy.format === 'jsonl' ? transcriptSidecars(copy.path) : [copy.path.replace(/\.jsonl$/, '.meta.json')];
  return createHash('sha256').update(statLine(copy.path, stats)).update(filesStamp(sidecars)).digest('hex');
}

/** Removes an older version's cache file: only a regular file of one name, which that rxstore may have made. */
async function removeOlderCache(path: string): Promise<void> {
  try {
    if (notOurs(path) === undefined) await rm(path, { force: true });
  } catch {
    // A cache: what cannot be looked at or removed now is left for a later run.
  }
}
