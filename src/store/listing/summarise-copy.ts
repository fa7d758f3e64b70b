import { stat } from 'node:fs/promises';
import { describeSystemError, isSystemError } from '../../errors/system-error.js';
import { goTime } from '../../codec/go-json.js';
import type { Header } from '../../session/reading/header.js';
import type { Projection } from '../../session/replay/projection.js';
import { readSession, type SessionStatus } from '../../session/reading/read-session.js';
import { workspaceOf } from '../../session/reading/workspace.js';
import type { DesktopRegistryFacts } from '../roots/desktop-registry.js';
import { jsonlMetaTitle } from '../jsonl/jsonl-meta.js';
import { readTranscriptLines } from '../jsonl/read-transcript-lines.js';
import type { JsonlCopy, SessionCopy, V0Copy, V4Copy } from './session-copy.js';
import { displayTitle, type DisplayTitle } from './title-text.js';

/**
 * Reasonix's verdict on a copy (docs/format.md §13.1), or `locked`: a running process holds its writer lock,
 * or `unreadable`: the system would not let it be read (a permission, a vanished file).
 */
export type ListedStatus = SessionStatus | 'locked' | 'unreadable';

/** Where a copy's workspace was learnt (docs/format.md §9.2, §11.3, §11.4, §12). */
export type WorkspaceSource = 'header' | 'session-context' | 'desktop-registry' | 'jsonl-meta' | 'v0-meta';

/** What reading a copy tells: its verdict, messages, title and workspace. */
export interface CopySummary extends DisplayTitle {
  status: ListedStatus;
  /** Why Reasonix would refuse it, or what is wrong with its files. */
  problem: string | null;
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
}

export interface SummariseOptions {
  /** Full verification of a v4 copy: its caches too (a JSONL transcript is always read whole). */
  verify: boolean;
  /** The desktop registry of the copy's state root, if it has one. */
  registry: DesktopRegistryFacts | undefined;
}

/**
 * Reads one copy: its log (v4) or transcript lines (JSONL, v0.x). A copy the system will not let
 * be read is `unreadable`, with the reason in words: one such copy never hides the others.
 */
export async function summariseCopy(copy: SessionCopy, options: SummariseOptions): Promise<CopySummary> {
  try {
    return copy.format === 'v4' ? await summariseV4(copy, options) : await summariseTranscript(copy);
  } catch (error) {
    if (!isSystemError(error)) throw error;
    return { status: 'unreadable', problem: describeSystemError(error), messages: 0, updatedAt: null, title: null, titleFrom: null, workspace: null, workspaceFrom: null, payloadRefs: 0 };
  }
}

async function summariseTranscript(copy: JsonlCopy | V0Copy): Promise<CopySummary> {
  const [lines, stats] = await Promise.all([
    readTranscriptLines(copy.path).catch((error: unknown) => {
      if (isSystemError(error)) throw error;
      return { messages: 0, firstUserText: null, problem: error instanceof Error ? error.message : String(error) };
    }),
    stat(copy.path),
  ]);
  const meta = transcriptMeta(copy);
  const problem = copy.meta.state === 'invalid' ? `invalid ${meta.file}: ${copy.meta.reason}` : lines.problem;
  return {
    status: problem ? 'damaged' : 'ok',
    problem,
    messages: lines.messages,
    updatedAt: meta.updatedAt ?? goTime(stats.mtime),
    ...displayTitle(meta.title, meta.preview ?? lines.firstUserText),
    workspace: meta.workspace ?? null,
    workspaceFrom: meta.workspace ? meta.source : null,
    payloadRefs: 0,
  };
}

/** What a transcript's meta file says: `<id>.jsonl.meta` (docs/format.md §11.3) or v0.x `<id>.meta.json` (docs/format.md §11.4). */
function transcriptMeta(copy: JsonlCopy | V0Copy): { file: string; title?: string; preview?: string; workspace?: string; updatedAt?: string; source: WorkspaceSource } {
  if (copy.format === 'jsonl') {
    const meta = copy.meta.state === 'ok' ? copy.meta.value : undefined;
    return {
      file: `${copy.id}.jsonl.meta`,
      title: meta && jsonlMetaTitle(meta),
      preview: meta?.preview || undefined,
      workspace: meta?.workspace_root || undefined,
      updatedAt: meta?.updated_at,
      source: 'jsonl-meta',
    };
  }
  const meta = copy.meta.state === 'ok' ? copy.meta.value : undefined;
  return { file: `${copy.id}.meta.json`, title: meta?.summary || undefined, workspace: meta?.workspace || undefined, source: 'v0-meta' };
}

async function summariseV4(copy: V4Copy, options: SummariseOptions): Promise<CopySummary> {
  const { status, problem, projection, header, payloadRefs, openBy, lastCommitAt } = await readV4(copy, options.verify);
  const claimed = claimedWorkspace(header, projection);
  const registered = options.registry?.workspaceOfSession.get(copy.id);
  return {
    // A running writer may be mid-append: what looks torn now is its next batch (docs/format.md §9.5).
    status: openBy && (status === 'ok' || status === 'torn-tail') ? 'locked' : status,
    problem,
    messages: seenByPersonCount(projection),
    updatedAt: lastCommitAt ?? null,
    ...displayTitle(projection.title, firstTypedMessage(projection)),
    workspace: claimed?.path ?? registered ?? null,
    workspaceFrom: claimed?.from ?? (registered ? 'desktop-registry' : null),
    payloadRefs,
  };
}

/** The verdict and replay of a v4 copy; listing skips the cache checks that only `--verify` shows. */
async function readV4(copy: V4Copy, verify: boolean) {
  const read = await readSession(copy.path, { caches: verify, keep: 'index', previews: true });
  const problem = read.problems.find((found) => found.severity === 'error')?.message ?? null;
  const { status, projection, header, payloadRefs, openBy, lastCommitAt } = read;
  return { status, problem, projection, header, payloadRefs, openBy, lastCommitAt };
}

/** The workspace the session names: `header.json` `cwd`, else its host session-context line. */
function claimedWorkspace(header: Header | undefined, projection: Projection): { path: string; from: WorkspaceSource } | undefined {
  if (header?.cwd) return { path: header.cwd, from: 'header' };
  const path = workspaceOf({ header, projection });
  return path ? { path, from: 'session-context' } : undefined;
}

/** The messages a person sees. */
function seenByPersonCount(projection: Projection): number {
  const transcript = projection.transcriptIndex;
  let seen = 0;
  for (let at = 0; at < transcript.length; at += 1) if (transcript.seenByPerson(at)) seen += 1;
  return seen;
}

/** What the person first typed: the preview Reasonix shows for an untitled session. */
function firstTypedMessage(projection: Projection): string | undefined {
  const transcript = projection.transcriptIndex;
  for (let at = 0; at < transcript.length; at += 1) if (transcript.typedByPerson(at)) return transcript.typedText(at);
  return undefined;
}
