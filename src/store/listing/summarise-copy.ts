import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { contentFileOf, contentStampOf, type ContentStamp } from './content-stamp.js';
import { FileSystemError, fileSystemErrorOf, isSessionVerdict, RxError, type RxErrorCode } from '../../errors/index.js';
import { isoTime } from '../../codec/iso-time.js';
import type { Header } from '../../session/reading/header.js';
import { readSessionOn, reasonixRefuses, type SessionStatus } from '../../session/verdict/read-session.js';
import { OperationsSeen } from '../../session/cursors/operations-seen.js';
import { shownTallyOf, tallyOf, type ShownTally } from './log-tally.js';
import { logStamp, metaDigest, type ResumePoint } from './resume-point.js';
import { cursorAt } from '../../session/cursors/cursor.js';
import type { DesktopRegistryFacts } from '../roots/desktop-registry.js';
import { jsonlMetaPreview, jsonlMetaTime, jsonlMetaTitle } from '../jsonl/jsonl-meta.js';
import { readTranscriptLines } from '../jsonl/read-transcript-lines.js';
import { readJsonlSession } from '../jsonl/read-jsonl-session.js';
import type { JsonlCopy, SessionCopy, V0Copy, V4Copy } from './session-copy.js';
import { displayTitle, type DisplayTitle } from '../../session/replay/session-title.js';
import type { GoesOnPastDamage } from '../../session/reading/checkpoint-cover.js';

/**
 * Reasonix's verdict on a copy (docs/format.md §13.1), or `locked`: a running process holds its writer lock,
 * or `unreadable`: the system would not let it be read (a permission, a vanished file).
 */
export type ListedStatus = SessionStatus | 'locked' | 'unreadable';

/** Where a copy's workspace was learnt (docs/format.md §9.2, §11.3, §11.4, §12). */
export const WorkspaceSourceSchema = z.enum([
  'header',
  'session-context',
  'desktop-registry',
  'jsonl-meta',
  'v0-meta',
  // Not read from the copy: the one folder whose slug its store is under, where the folder it names is another (`storeWorkspace`).
  'store-slug',
]);
export type WorkspaceSource = z.infer<typeof WorkspaceSourceSchema>;

/** What reading a copy tells: its verdict, messages, title and workspace. */
export interface CopySummary extends DisplayTitle {
  status: ListedStatus;
  /** Why Reasonix would refuse it, or what is wrong with its files. */
  problem: string | null;
  /** That problem's code (docs/error-codes.md); null with none. */
  problemCode: RxErrorCode | null;
  /** The messages a person sees (the person's view): no host session-context lines, no local-only records. */
  messages: number;
  /**
   * When it last changed: its last committed batch's time as written in the log (v4), the meta's
   * `updated_at` (JSONL), else the transcript's mtime; what `inspect` reports as `updatedAt`.
   */
  updatedAt: string | null;
  /** The workspace folder, when the copy says; otherwise only its slug is known (docs/format.md §1.3). */
  workspace: string | null;
  workspaceFrom: WorkspaceSource | null;
  /** Events whose payload lives in the store's `.content-v1` (docs/format.md §6). */
  payloadRefs: number;
  /**
   * A damaged copy Reasonix goes on with from its recovery checkpoint, every damage lying before the
   * checkpoint's anchor (`SessionRead.goesOnFrom`): where; null otherwise.
   */
  goesOnFrom: GoesOnPastDamage | null;
}

export interface SummariseOptions {
  /** Full verification of a v4 copy: its caches too (a JSONL transcript is always read whole). */
  verify: boolean;
  /**
   * The read is kept in a summary cache: a v4 copy's read then says where a later read can go on
   * from and which content-store files it took (`resume`, `content`). Without a cache nothing reads
   * them, and they are not worked out (default true).
   */
  forCache?: boolean;
  /** The desktop registry of the copy's state root, if it has one. */
  registry: DesktopRegistryFacts | undefined;
}

/** What reading a copy told, and where a later read can go on from when its log grows (v4 it opens). */
export interface CopyRead {
  summary: CopySummary;
  resume?: ResumePoint;
  /** The content-store files the copy's payloads came from, and their stamp when it was read: what it depends on outside its directory. */
  content?: ContentStamp;
}

/**
 * Reads one copy: its log (v4) or transcript lines (JSONL, v0.x). A copy the system will not let
 * be read is `unreadable`, with the reason in words: one such copy never hides the others.
 */
export async function summariseCopy(copy: SessionCopy, options: SummariseOptions): Promise<CopyRead> {
  try {
    return copy.format === 'v4' ? await summariseV4(copy, options) : { summary: await summariseTranscript(copy) };
  } catch (error) {
    // The system will not let it be read (EACCES, EIO, …), or rxstore will not read it whole (a FIFO,
    // a message or object larger than it holds): that copy is `unreadable`, said with its code; a
    // fault of rxstore's own surfaces.
    const coded = fileSystemErrorOf(error);
    if (coded instanceof FileSystemError) return { summary: unreadable(coded.message, coded.code) };
    if (coded instanceof RxError && !isSessionVerdict(coded))
      return {
        summary: unreadable(
          `${coded.code}: ${coded.data.file ? `${coded.data.file}: ` : ''}${coded.message}`,
          coded.code,
        ),
      };
    throw error;
  }
}

/** A copy the system would not let be read. */
export function unreadable(problem: string, problemCode: RxErrorCode): CopySummary {
  return {
    status: 'unreadable',
    problem,
    problemCode,
    messages: 0,
    updatedAt: null,
    title: null,
    titleFrom: null,
    workspace: null,
    workspaceFrom: null,
    payloadRefs: 0,
    goesOnFrom: null,
  };
}

async function summariseTranscript(copy: JsonlCopy | V0Copy): Promise<CopySummary> {
  // A meta file the system would not let be read: the copy is unreadable, never summarised without it.
  if (copy.meta.state === 'unreadable') throw copy.meta.error;
  const [lines, stats] = await Promise.all([
    // Only damage is a verdict on the transcript; the file system (unreadable) and faults go on up.
    readTranscriptLines(copy.path).catch((error: unknown) => {
      if (!isSessionVerdict(error)) throw error;
      return { messages: 0, firstUserText: null, problem: error.message, problemCode: error.code };
    }),
    stat(copy.path),
  ]);
  const meta = transcriptMeta(copy);
  // What Reasonix migrates a transcript it loads whole into: a sidecar it waits on forever, or its migration (a
  // second result for one call), may still refuse it, and its gate a new turn in it.
  const migrated =
    !lines.problem && copy.format === 'jsonl' ? await readJsonlSession(copy.path, { keep: 'index' }) : undefined;
  const refused =
    migrated?.status === 'damaged' ? migrated.problems.find(({ severity }) => severity === 'error') : undefined;
  const turn =
    migrated?.status === 'turn-refused' ? migrated.problems.find(({ code }) => code === 'RX_TURN_REFUSED') : undefined;
  const damage = lines.problem
    ? { problem: lines.problem, problemCode: lines.problemCode }
    : refused
      ? { problem: refused.message, problemCode: refused.code }
      : undefined;
  // A meta file Reasonix cannot read it does without (it resumes the transcript): said, but no damage.
  const invalidMeta = copy.meta.state === 'invalid' ? `invalid ${meta.file}: ${copy.meta.reason}` : null;
  const problem = damage?.problem ?? turn?.message ?? invalidMeta;
  return {
    status: damage ? 'damaged' : turn ? 'turn-refused' : 'ok',
    problem,
    problemCode: damage ? damage.problemCode : turn ? turn.code : invalidMeta ? 'RX_JSONL_META' : null,
    messages: lines.messages,
    updatedAt: isoTime(meta.updatedAt) ?? isoTime(stats.mtime),
    ...displayTitle(meta.title, meta.preview ?? lines.firstUserText),
    workspace: meta.workspace ?? null,
    workspaceFrom: meta.workspace ? meta.source : null,
    payloadRefs: 0,
    goesOnFrom: null,
  };
}

/** What a transcript's meta file says: `<id>.jsonl.meta` (docs/format.md §11.3) or v0.x `<id>.meta.json` (docs/format.md §11.4). */
function transcriptMeta(copy: JsonlCopy | V0Copy): {
  file: string;
  title?: string;
  preview?: string;
  workspace?: string;
  updatedAt?: string;
  source: WorkspaceSource;
} {
  if (copy.format === 'jsonl') {
    const meta = copy.meta.state === 'ok' ? copy.meta.value : undefined;
    return {
      file: `${copy.id}.jsonl.meta`,
      title: meta && jsonlMetaTitle(meta),
      preview: meta && jsonlMetaPreview(meta),
      workspace: meta?.workspace_root || undefined,
      updatedAt: jsonlMetaTime(meta?.updated_at),
      source: 'jsonl-meta',
    };
  }
  const meta = copy.meta.state === 'ok' ? copy.meta.value : undefined;
  return {
    file: `${copy.id}.meta.json`,
    title: meta?.summary || undefined,
    workspace: meta?.workspace || undefined,
    source: 'v0-meta',
  };
}

async function summariseV4(copy: V4Copy, options: SummariseOptions): Promise<CopyRead> {
  const forCache = options.forCache ?? true;
  const before = forCache ? logStamp(copy) : undefined;
  // An index of the messages (and the start of what was typed, for a title): a listing's memory does not grow with a session's messages.
  // The operation ids its batches used, for the resume point's cursor: a batch appended later is judged against them.
  const operations = forCache ? OperationsSeen.none() : undefined;
  const read = await readSessionOn('by size', copy.path, {
    caches: options.verify,
    keep: 'index',
    previews: true,
    ...(operations ? { operations } : {}),
  });
  const found = read.problems.find((each) => each.severity === 'error');
  const problem = found ? { message: found.message, code: found.code } : null;
  const facts = { lastCommitAt: read.lastCommitAt ?? null, payloadRefs: read.payloadRefs };
  const shown = {
    status: read.status,
    problem,
    header: read.header,
    openBy: read.openBy,
    goesOnFrom: read.goesOnFrom ?? null,
  };
  // What a later read would go on from (the ids seen, what the transcript gate needs) only a cache keeps.
  if (!forCache)
    return { summary: summaryOfV4(copy, { ...shown, tally: shownTallyOf(read.projection, facts) }, options.registry) };
  const tally = tallyOf(read.projection, facts);
  const summary = summaryOfV4(copy, { ...shown, tally }, options.registry);
  // The content file the read stopped at is stamped too: put back or mended, the copy is read again.
  const stoppedAt = contentFileOf(read.refusal);
  const content = contentStampOf(stoppedAt === undefined ? read.contentFiles : [...read.contentFiles, stoppedAt]);
  if (read.status !== 'ok' && read.status !== 'torn-tail') return { summary, ...(content ? { content } : {}) };
  const cursor = await cursorAt(copy.path, copy.id, {
    offset: read.durableEnd,
    nextSequence: read.lastSequence + 1,
    writerGeneration: read.writerGeneration,
    ...(operations ? { operations: operations.snapshot() } : {}),
  });
  // A log that changed during the read gives no resume point: the bytes before the cursor may not be those replayed.
  const after = logStamp(copy);
  if (!before || before.stamp !== after?.stamp) return { summary, ...(content ? { content } : {}) };
  return {
    summary,
    resume: { cursor, tally, logInode: before.inode, logSize: before.size, meta: metaDigest(copy) },
    ...(content ? { content } : {}),
  };
}

/** What a v4 copy's verdict and tally say, as listing shows it. */
export function summaryOfV4(
  copy: V4Copy,
  read: {
    status: SessionStatus;
    problem: { message: string; code: RxErrorCode } | null;
    tally: ShownTally;
    header: Header | undefined;
    openBy: string | undefined;
    goesOnFrom?: GoesOnPastDamage | null;
  },
  registry: DesktopRegistryFacts | undefined,
): CopySummary {
  const { status, tally } = read;
  // The workspace the session names: `header.json` `cwd`, else its latest host session-context line.
  const claimed = read.header?.cwd
    ? { path: read.header.cwd, from: 'header' as const }
    : tally.workspace !== null
      ? { path: tally.workspace, from: 'session-context' as const }
      : undefined;
  const registered = registry?.workspaceOfSession.get(copy.id);
  return {
    // A running writer may be mid-append: what looks torn now is its next batch (docs/format.md §9.5).
    status: read.openBy && !reasonixRefuses(status) ? 'locked' : status,
    problem: read.problem?.message ?? null,
    problemCode: read.problem?.code ?? null,
    messages: tally.messages,
    updatedAt: isoTime(tally.lastCommitAt),
    ...displayTitle(tally.title, tally.firstTyped?.text),
    workspace: claimed?.path ?? registered ?? null,
    workspaceFrom: claimed?.from ?? (registered ? 'desktop-registry' : null),
    payloadRefs: tally.payloadRefs,
    goesOnFrom: read.goesOnFrom ?? null,
  };
}
