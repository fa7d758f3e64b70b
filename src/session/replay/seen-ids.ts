import * as z from 'zod';
import type { Projection } from './projection.js';

/**
 * The ids a log's earlier batches used, carried across a cursor so that a later batch is judged
 * as the whole replay would judge it: Reasonix refuses a message id the transcript already holds
 * and a transcript that answers one tool call twice, whatever batches the results came in. Kept as 32-bit hashes (4 bytes an id), so a hit is only a maybe: the caller then replays the
 * log whole, which decides.
 */
export const SeenIdsSchema = z.object({
  /** Hashes of the transcript's message ids, base64 of little-endian 32-bit words. */
  ids: z.base64(),
  /** Hashes of the tool calls the transcript's results answer, as `ids`. */
  answered: z.base64(),
});
export type SavedSeenIds = z.infer<typeof SeenIdsSchema>;

export class SeenIds {
  private readonly ids: Set<number>;
  private readonly answered: Set<number>;
  private readonly newIds: string[] = [];
  private readonly newAnswers: string[] = [];

  private constructor(private readonly saved: SavedSeenIds) {
    this.ids = hashSet(saved.ids);
    this.answered = hashSet(saved.answered);
  }

  /** What a replay of the log so far holds. */
  static of(projection: Projection): SeenIds {
    const { ids, answers } = idsOf(projection);
    return new SeenIds({ ids: hashList(ids), answered: hashList(answers) });
  }

  /** What a log with no batches holds. */
  static none(): SeenIds {
    return new SeenIds({ ids: '', answered: '' });
  }

  static from(saved: SavedSeenIds): SeenIds {
    return new SeenIds(saved);
  }

  /**
   * Takes in the ids of a batch replayed on its own, and says whether one may repeat an id taken in
   * before (a hash hit: replay the log whole to decide).
   */
  add(batch: Projection): boolean {
    const { ids, answers } = idsOf(batch);
    const hashes = ids.map(hash32);
    const answerHashes = answers.map(hash32);
    const mayRepeat = hashes.some((hash) => this.ids.has(hash)) || answerHashes.some((hash) => this.answered.has(hash));
    for (const hash of hashes) this.ids.add(hash);
    for (const hash of answerHashes) this.answered.add(hash);
    this.newIds.push(...ids);
    this.newAnswers.push(...answers);
    return mayRepeat;
  }

  /** What to save: the hashes given, then those of the batches added. */
  save(): SavedSeenIds {
    return {
      ids: appendHashes(this.saved.ids, this.newIds),
      answered: appendHashes(this.saved.answered, this.newAnswers),
    };
  }
}

/** The replay's message ids, and the tool calls its transcript holds a result for (what a second result is refused against). */
function idsOf(projection: Projection): { ids: string[]; answers: string[] } {
  const index = projection.transcriptIndex;
  const ids: string[] = [];
  const answers: string[] = [];
  for (let at = 0; at < index.length; at += 1) {
    const id = index.messageId(at);
    const call = index.completesCall(at);
    if (id !== undefined) ids.push(id);
    if (call !== undefined) answers.push(call);
  }
  // A submission receipt's key is held as an id of its own kind: a receipt for it again may conflict.
  for (const key of projection.submissionKeys()) ids.push(`${RECEIPT}${key}`);
  return { ids, answers };
}

/** Before a submission receipt's key among message ids (a message id of the same text costs only a whole read). */
export const RECEIPT = '\u0000receipt\u0000';

/** FNV-1a over UTF-16 code units: cheap, and a collision costs only a whole read. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  // Stryker disable next-line EqualityOperator: speed only: another hash, or more ids, only makes more possible repeats, and the whole replay decides each
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
  // Stryker disable next-line ConditionalExpression: speed only: another hash, or more ids, only makes more possible repeats, and the whole replay decides each
  if (texts.length === 0) return base64;
  return Buffer.concat([Buffer.from(base64, 'base64'), Buffer.from(hashList(texts), 'base64')]).toString('base64');
}

function hashSet(base64: string): Set<number> {
  const words = Buffer.from(base64, 'base64');
  const set = new Set<number>();
  for (let at = 0; at + 4 <= words.length; at += 4) set.add(words.readUInt32LE(at));
  return set;
}
