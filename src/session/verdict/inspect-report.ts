import { isoTime } from '../../codec/iso-time.js';
import { checkHygiene, type Hygiene } from '../replay/hygiene.js';
import { promoteWarnings, type ErrorData, type Problem } from '../../errors/index.js';
import type { SessionRead, SessionStatus } from './read-session.js';
import { workspaceOf } from './read-session.js';
import type { TornTail } from '../../codec/batch.js';
import type { DisplayTitle } from '../replay/session-title.js';
import type { GoesOnPastDamage } from '../reading/checkpoint-cover.js';

/**
 * A problem as `inspect --json` prints it: code, severity, message and data, with the place (file,
 * offset, line) also flat beside them, where the inspect JSON has always had it.
 */
export type ReportedProblem = Problem & Pick<ErrorData, 'file' | 'offset' | 'line'>;

export interface InspectOptions {
  /** Every warning (of the read and of hygiene) is an error: `inspect --strict` (node-tar's `strict`). */
  strict?: boolean;
}

/** The facts `rxstore inspect` reports about one session; `--json` prints exactly this object. */
export interface InspectReport {
  id: string;
  store: string;
  path: string;
  status: SessionStatus;
  workspace: string | null;
  /** What the session is called, as `ls` shows it: its own title, else the start of what the person first typed (null: neither). */
  title: string | null;
  /** Where `title` comes from: the session's own title, or a preview of its first typed message. */
  titleFrom: DisplayTitle['titleFrom'];
  createdAt: string | null;
  updatedAt: string | null;
  writerGeneration: number;
  batches: number;
  events: { total: number; byKind: Record<string, number> };
  /** Every message of the canonical transcript, by role, and how many of them a person sees (what `cat` and `ls` count). */
  messages: { total: number; byRole: Record<string, number>; seenByPerson: number };
  payloadRefs: number;
  tornTail: { offset: number; bytes: number } | null;
  tornEvidence: string[];
  lockFiles: string[];
  /**
   * Whether Reasonix takes a new turn in the session it opens (its transcript gate): when it will
   * not, its reason in its words and the message of its model view it names (the system message is 0).
   * Null for a session Reasonix does not open.
   */
  newTurn: { accepted: boolean; reason: string | null; message: number | null } | null;
  /** True while a running Reasonix holds the session's writer lock. */
  openInRunningReasonix: boolean;
  /**
   * A damaged session Reasonix goes on with all the same, from its recovery checkpoint, every damage lying in
   * the log before the checkpoint's anchor (docs/format.md §9.10): where; null otherwise. The status and
   * problems still say the damage: what rxstore reads stops there.
   */
  goesOnFrom: GoesOnPastDamage | null;
  hygiene: Hygiene;
  problems: ReportedProblem[];
}

/**
 * What `rxstore inspect` prints, as data: the verdict, counts, times, locks, hygiene and every
 * problem found; `strict` makes warnings errors. A read that kept no messages must have kept
 * their previews (`previews: true`), for the title.
 */
export function inspectReport(read: SessionRead, store: string, options: InspectOptions = {}): InspectReport {
  const transcript = read.projection.transcriptIndex;
  // Null-prototype counters, keys in the order roles are first met.
  const byRole = Object.create(null) as Record<string, number>;
  let seen = 0;
  for (let at = 0; at < transcript.length; at += 1) {
    const role = transcript.role(at);
    byRole[role] = (byRole[role] ?? 0) + 1;
    if (transcript.seenByPerson(at)) seen += 1;
  }
  return {
    id: read.id,
    store,
    path: read.dir,
    status: read.status,
    workspace: workspaceOf(read) ?? null,
    ...read.projection.displayTitle,
    createdAt: isoTime(read.manifest?.createdAt) ?? isoTime(read.firstCommitAt),
    updatedAt: isoTime(read.lastCommitAt),
    writerGeneration: read.writerGeneration,
    batches: read.batches,
    events: read.events,
    messages: { total: transcript.length, byRole, seenByPerson: seen },
    payloadRefs: read.payloadRefs,
    tornTail: tornTailFacts(read.tornTail),
    tornEvidence: read.tornEvidence,
    lockFiles: read.lockFiles,
    newTurn: newTurnFacts(read),
    openInRunningReasonix: read.openBy !== undefined,
    goesOnFrom: read.goesOnFrom ?? null,
    hygiene: checkHygiene(read.projection, { cutByDamage: read.refusal !== undefined, strict: options.strict }),
    problems: promoteWarnings(read.problems, options.strict).map(reported),
  };
}

function newTurnFacts(read: SessionRead): InspectReport['newTurn'] {
  if (read.status === 'damaged' || read.status === 'unsupported') return null;
  const verdict = read.projection.newTurn;
  return verdict.accepted
    ? { accepted: true, reason: null, message: null }
    : { accepted: false, reason: verdict.reason, message: verdict.index ?? null };
}

function reported(problem: Problem): ReportedProblem {
  const { file, offset, line } = problem.data;
  // Stryker disable next-line ConditionalExpression: every problem a session or transcript reader reports names its file: no input leaves file undefined
  return {
    ...problem,
    ...(file !== undefined ? { file } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(line !== undefined ? { line } : {}),
  };
}

function tornTailFacts(tail: TornTail | null): InspectReport['tornTail'] {
  return tail ? { offset: tail.offset, bytes: tail.bytes } : null;
}
