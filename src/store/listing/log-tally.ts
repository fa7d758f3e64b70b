import * as z from 'zod';
import type { Projection } from '../../session/replay/projection.js';
import { SeenIds, SeenIdsSchema, type SavedSeenIds } from '../../session/replay/seen-ids.js';
import { firstTyped } from '../../session/replay/session-title.js';
import { gateCarry, GateCarrySchema, transcriptGate } from '../../session/replay/transcript-gate.js';

/**
 * What listing takes from a v4 log's replay, and what must be carried across a cursor to go on
 * from it with only the batches after it: the person's message count, the title, the first typed
 * message, the workspace its host lines name, payloadRefs, the last commit time — and, to judge a
 * later message as the whole replay would, 32-bit hashes of the transcript's message ids and of
 * the tool calls the model's list answers (a hit is only a maybe: the log is read again whole).
 */
export const LogTallySchema = SeenIdsSchema.extend({
  messages: z.number().int().nonnegative(),
  lastCommitAt: z.string().nullable(),
  /** The session's own title (`session/title`), which may be empty; null when it never had one. */
  title: z.string().nullable(),
  /** The first message the person typed; `found` with no text when it is not a plain text. */
  firstTyped: z.object({ text: z.string().nullable() }).nullable(),
  /** The workspace the latest host session-context message names. */
  workspace: z.string().nullable(),
  payloadRefs: z.number().int().nonnegative(),
  /** What Reasonix's transcript gate needs of the model's list to judge what is appended to it. */
  gate: GateCarrySchema,
});
export type LogTally = z.infer<typeof LogTallySchema>;

/** The few facts of a log's batches a tally needs besides its replay. */
export interface BatchFacts {
  lastCommitAt: string | null;
  payloadRefs: number;
}

/** What a listing's row shows of a tally: none of what carrying it on needs. */
export type ShownTally = Omit<LogTally, 'gate' | keyof SavedSeenIds>;

/** The tally of a whole replay. */
export function tallyOf(projection: Projection, facts: BatchFacts): LogTally {
  return {
    ...shownTallyOf(projection, facts),
    gate: gateCarry(projection.gateMessages()),
    ...SeenIds.of(projection).save(),
  };
}

/** What a row shows of a whole replay's tally, for a read no cache keeps. */
export function shownTallyOf(projection: Projection, facts: BatchFacts): ShownTally {
  return {
    messages: projection.transcriptIndex.seenByPersonCount(),
    lastCommitAt: facts.lastCommitAt,
    title: projection.title ?? null,
    firstTyped: firstTyped(projection.transcriptIndex),
    workspace: projection.workspace ?? null,
    payloadRefs: facts.payloadRefs,
  };
}

/**
 * A tally carried on batch by batch, each batch replayed on its own after the tally's batches.
 * `add` says false when a batch does something a tally cannot follow exactly: a message
 * rewritten, taken back or replaced (upsert, retract, history replace, a compaction), an id the
 * log may already hold, a tool call the model's list may already answer, a payload Reasonix
 * refuses. The caller then reads the log whole.
 */
export class TallyCarrier {
  private readonly seen: SeenIds;

  constructor(private tally: LogTally) {
    this.seen = SeenIds.from(tally);
  }

  add(batch: Projection, kinds: readonly string[], facts: BatchFacts): boolean {
    if (batch.strictness.length > 0 || kinds.some((kind) => REWRITING_KINDS.has(kind))) return false;
    // A possible repeat ends the carrying: the caller reads the log whole, and this tally is dropped.
    if (this.seen.add(batch)) return false;
    const { tally } = this;
    // A new turn Reasonix refuses after the batch: the whole read says so, in its words.
    const view = [...tally.gate.tail, ...batch.gateMessages()];
    if (!transcriptGate(view, tally.gate).accepted) return false;
    this.tally = {
      ...tally,
      messages: tally.messages + batch.transcriptIndex.seenByPersonCount(),
      lastCommitAt: facts.lastCommitAt ?? tally.lastCommitAt,
      title: batch.title ?? tally.title,
      firstTyped: tally.firstTyped ?? firstTyped(batch.transcriptIndex),
      workspace: batch.workspace ?? tally.workspace,
      payloadRefs: tally.payloadRefs + facts.payloadRefs,
      gate: gateCarry(view, tally.gate),
    };
    return true;
  }

  /** The tally after the batches added. */
  result(): LogTally {
    return { ...this.tally, ...this.seen.save() };
  }
}

/** Event kinds that change what earlier batches wrote: a tally cannot follow them without the log before. */
const REWRITING_KINDS = new Set([
  'message/upsert',
  'message/retract',
  'history/replace',
  'legacy/import',
  'model/context-replace',
  'compaction',
]);
