import { z } from 'zod';
import type { Projection } from '../../session/replay/projection.js';
import { seenByPerson } from '../../session/replay/views.js';

/**
 * What listing takes from a v4 log's replay, and what must be carried across a cursor to go on
 * from it with only the batches after it: the person's message count, the title, the first typed
 * message, the workspace its host lines name, payloadRefs, the last commit time — and, to judge a
 * later message as the whole replay would, 32-bit hashes of the transcript's message ids and of
 * the tool calls the model's list answers (a hit is only a maybe: the log is read again whole).
 */
export const LogTallySchema = z.object({
  messages: z.number().int().nonnegative(),
  lastCommitAt: z.string().nullable(),
  /** The session's own title (`session/title`), which may be empty; null when it never had one. */
  title: z.string().nullable(),
  /** The first message the person typed; `found` with no text when it is not a plain text. */
  firstTyped: z.object({ text: z.string().nullable() }).nullable(),
  /** The workspace the latest host session-context message names. */
  workspace: z.string().nullable(),
  payloadRefs: z.number().int().nonnegative(),
  /** Hashes of the transcript's message ids, base64 of little-endian 32-bit words. */
  ids: z.base64(),
  /** Hashes of the tool calls answered in the model's list, as `ids`. */
  answered: z.base64(),
});
export type LogTally = z.infer<typeof LogTallySchema>;

/** The few facts of a log's batches a tally needs besides its replay. */
export interface BatchFacts {
  lastCommitAt: string | null;
  payloadRefs: number;
}

/** The tally of a whole replay. */
export function tallyOf(projection: Projection, facts: BatchFacts): LogTally {
  return {
    messages: projection.transcript.filter(({ message }) => seenByPerson(message)).length,
    lastCommitAt: facts.lastCommitAt,
    title: projection.title ?? null,
    firstTyped: firstTyped(projection),
    workspace: projection.workspace ?? null,
    payloadRefs: facts.payloadRefs,
    ids: hashList(messageIds(projection)),
    answered: hashList(answeredCalls(projection)),
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
  private readonly ids: Set<number>;
  private readonly answered: Set<number>;
  private readonly newIds: string[] = [];
  private readonly newAnswers: string[] = [];

  constructor(private tally: LogTally) {
    this.ids = hashSet(tally.ids);
    this.answered = hashSet(tally.answered);
  }

  add(batch: Projection, kinds: readonly string[], facts: BatchFacts): boolean {
    if (batch.strictness.length > 0 || kinds.some((kind) => REWRITING_KINDS.has(kind))) return false;
    const ids = messageIds(batch).map(hash32);
    const answers = answeredCalls(batch).map(hash32);
    if (ids.some((id) => this.ids.has(id)) || answers.some((id) => this.answered.has(id))) return false;
    for (const id of ids) this.ids.add(id);
    for (const id of answers) this.answered.add(id);
    this.newIds.push(...messageIds(batch));
    this.newAnswers.push(...answeredCalls(batch));
    const { tally } = this;
    this.tally = {
      ...tally,
      messages: tally.messages + batch.transcript.filter(({ message }) => seenByPerson(message)).length,
      lastCommitAt: facts.lastCommitAt ?? tally.lastCommitAt,
      title: batch.title ?? tally.title,
      firstTyped: tally.firstTyped ?? firstTyped(batch),
      workspace: batch.workspace ?? tally.workspace,
      payloadRefs: tally.payloadRefs + facts.payloadRefs,
    };
    return true;
  }

  /** The tally after the batches added. */
  result(): LogTally {
    return {
      ...this.tally,
      ids: appendHashes(this.tally.ids, this.newIds),
      answered: appendHashes(this.tally.answered, this.newAnswers),
    };
  }
}

/** Event kinds that change what earlier batches wrote: a tally cannot follow them without the log before. */
const REWRITING_KINDS = new Set(['message/upsert', 'message/retract', 'history/replace', 'legacy/import', 'model/context-replace', 'compaction']);

/** What the person first typed: the preview Reasonix shows for an untitled session; null when none yet. */
function firstTyped(projection: Projection): LogTally['firstTyped'] {
  for (const { message } of projection.transcript) {
    if (message.role === 'user' && message.origin !== 'host') {
      return { text: message.raw_content || (typeof message.content === 'string' ? message.content : null) };
    }
  }
  return null;
}

function messageIds(projection: Projection): string[] {
  return projection.transcript.flatMap(({ message }) => (message.id === undefined ? [] : [message.id]));
}

/** The tool calls the model's list holds a result for (what a second result is refused against). */
function answeredCalls(projection: Projection): string[] {
  return projection.modelMessages.flatMap((message) => (message.role === 'tool' && message.tool_call_id && !message.local_only ? [message.tool_call_id] : []));
}

/** FNV-1a over UTF-16 code units: cheap, and a collision costs only a whole read. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < text.length; at += 1) {
    hash ^= text.charCodeAt(at);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function hashList(texts: readonly string[]): string {
  const words = Buffer.alloc(texts.length * 4);
  texts.forEach((text, at) => words.writeUInt32LE(hash32(text), at * 4));
  return words.toString('base64');
}

function appendHashes(base64: string, texts: readonly string[]): string {
  if (texts.length === 0) return base64;
  return Buffer.concat([Buffer.from(base64, 'base64'), Buffer.from(hashList(texts), 'base64')]).toString('base64');
}

function hashSet(base64: string): Set<number> {
  const words = Buffer.from(base64, 'base64');
  const set = new Set<number>();
  for (let at = 0; at + 4 <= words.length; at += 4) set.add(words.readUInt32LE(at));
  return set;
}
