import { join } from 'node:path';
import { BatchChangedError, DamagedStoreError } from '../../errors/index.js';
import { BatchesDigest } from './batches-digest.js';
import {
  loneResultRecord,
  messageKey,
  placeCounter,
  recordOfCall,
  recordsOfMessage,
  recordTime,
  resultPositions,
  type IndexRecord,
  type RecordContext,
} from '../replay/index-records.js';
import type { IndexedTranscript, TranscriptEntry } from '../replay/transcript-index.js';
import { replayBatch } from '../replay/strict-payload-error.js';
import { readSessionEvents } from '../reading/read-events.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { readSessionOn, workspaceOf, type SessionRead } from './read-session.js';

/**
 * Every index record of a session, as `indexRecords` makes them of its transcript held whole, in
 * the same order, in memory that does not grow with the log: two passes. The first is the whole
 * read that keeps only the transcript's index (`keep: 'index'`: the verdict, the title, the
 * workspace, which message stands where and which event last wrote it, which result answers
 * which call). The second reads the log again, each batch replayed on its own, and gives a
 * message's records once the event that last wrote it, and those of its calls' results, have
 * been read. What waits is the messages written before those ahead of them in the transcript are
 * final: a turn's calls and results, more only where a message was rewritten long after it was
 * first written. A refusal is thrown after the records before it, as `read()` reports it. Both
 * passes decode on the caller's thread, as the streams since a cursor do (`replayedBatches`).
 */
export async function* streamedRecords(
  dir: string,
  sessionId: string,
  firstPass: FirstPass = () => readSessionOn('this', dir, { keep: 'index' }),
): AsyncGenerator<IndexRecord> {
  yield* twoPassesOfLog(
    dir,
    async () => recordsBeforeRefusal(dir, await firstPass()),
    (whole, entries, changed) => recordsOfTwoPasses(whole, sessionId, entries, changed),
  );
}

/**
 * What a session's records are made of, from its first pass `whole`: that read, or, when Reasonix refuses the
 * session at an event (a record key its transcript holds twice, a message id completed again), the session
 * read again up to the batch that holds the event, with `whole`'s refusal. The records are then those of the
 * batches before it, as `recordsSince` gives them, and never those of a message refused (a tool result paired
 * with the call another result answers) or of what the replay read past it.
 */
async function recordsBeforeRefusal(dir: string, whole: SessionRead): Promise<SessionRead> {
  const refusedAt = whole.projection.refusedAt;
  if (whole.refusal === undefined || refusedAt === undefined) return whole;
  const before = await readSessionOn('this', dir, { keep: 'index', endBefore: refusedAt });
  return { ...before, status: whole.status, problems: whole.problems, refusal: whole.refusal };
}

/** The transcript of a session in order, each message in its final form, as `streamedRecords` reads it: two passes, memory flat. */
export async function* streamedTranscript(
  dir: string,
  firstPass: FirstPass = () => readSessionOn('this', dir, { keep: 'index' }),
): AsyncGenerator<TranscriptEntry> {
  yield* twoPassesOfLog(dir, firstPass, transcriptOfTwoPasses);
}

/** The first pass of two: a read of the whole session that keeps the transcript's index (`keep: 'index'`), perhaps one shared with other reads. */
export type FirstPass = () => Promise<SessionRead>;

/** `second` over the first pass of a log (its verdict and the transcript's index) and its batches read again. */
async function* twoPassesOfLog<T>(dir: string, firstPass: FirstPass, second: SecondPass<T>): AsyncGenerator<T> {
  const whole = await firstPass();
  const logPath = join(dir, SESSION_FILES.log);
  yield* second(whole, loggedEntries(dir, whole), () => new BatchChangedError(logPath, whole.durableEnd));
}

/**
 * What a second pass makes of the first pass `whole` and the session's messages read again as
 * `entries`, a group at a time; `changed` is thrown when they do not hold what the first pass read.
 */
export type SecondPass<T> = (
  whole: SessionRead,
  entries: AsyncIterable<readonly TranscriptEntry[]>,
  changed: () => Error,
) => AsyncIterable<T>;

/**
 * The records of a session whose first pass is `whole` (a read that keeps the transcript's index), its
 * messages given again by the second pass as `entries`, a group at a time (each as the replay of its
 * group alone writes it, up to where the first pass ended); `changed` is what is thrown when the second
 * pass does not hold what the first read. A refusal of the first pass is thrown after the records.
 */
export async function* recordsOfTwoPasses(
  whole: SessionRead,
  sessionId: string,
  entries: AsyncIterable<readonly TranscriptEntry[]>,
  changed: () => Error,
): AsyncGenerator<IndexRecord> {
  const plan = recordsPlan(whole, sessionId);
  // A message's records wait for its calls' results: a call's record holds its outcome.
  const final = (at: number, ready: ReadonlyMap<number, TranscriptEntry>) =>
    plan.results[at]!.every((result) => result < 0 || ready.has(result));
  for await (const { at, ready } of inTranscriptOrder(entries, plan, changed, final)) yield* recordsAt(at, plan, ready);
  if (whole.refusal) throw whole.refusal;
}

/**
 * The transcript of a session whose first pass is `whole`, in order, each message in its final form,
 * from the second pass's `entries` (as `recordsOfTwoPasses` takes them): what the transcript held whole
 * gives, in memory that does not grow with it. A refusal of the first pass is thrown after the messages.
 */
export async function* transcriptOfTwoPasses(
  whole: SessionRead,
  entries: AsyncIterable<readonly TranscriptEntry[]>,
  changed: () => Error,
): AsyncGenerator<TranscriptEntry> {
  const places = placesOf(whole.projection.transcriptIndex);
  for await (const { at, ready } of inTranscriptOrder(entries, places, changed, () => true)) yield ready.get(at)!;
  if (whole.refusal) throw whole.refusal;
}

/**
 * The log's batches up to where the first pass ended, each replayed on its own: the transcript entries
 * it writes. Batches other than the first pass read (the log written over in place between the reads,
 * each batch signed anew) end it in an error after the last: what was given is not one session.
 */
async function* loggedEntries(dir: string, whole: SessionRead): AsyncGenerator<readonly TranscriptEntry[]> {
  const logPath = join(dir, SESSION_FILES.log);
  const read = new BatchesDigest();
  for await (const item of readSessionEvents(dir)) {
    if (item.type !== 'batch') continue;
    read.add(item.value.batch.sha256);
    yield replayBatch(item.value, logPath).replay.transcript;
    if (item.value.batch.end >= whole.durableEnd) break;
  }
  if (whole.readDigest !== undefined && read.digest() !== whole.readDigest)
    throw new DamagedStoreError('the log was written over between its two reads: read the session again', {
      file: logPath,
    });
}

/** Where each message of the transcript stands, as the first pass read it: how the second finds it again. */
interface TranscriptPlaces {
  length: number;
  /** The sequence of the event that last wrote the message at each position. */
  seqs: Float64Array;
  /** Each message's place among those its event wrote without an id (`placeCounter`); 0 for one with an id. */
  ordinals: Int32Array;
  /**
   * The positions of the messages with an id, in order (the first pass's index keeps them: no map of its own,
   * whatever the length, but for an id a history holds twice, which Reasonix keeps at both places).
   */
  positionsOf(id: string): readonly number[];
  /** A position by `seq.ordinal`, for a message with no id. */
  byPlace: Map<string, number>;
}

function placesOf(index: IndexedTranscript): TranscriptPlaces {
  const { length } = index;
  const seqs = new Float64Array(length);
  const ordinals = new Int32Array(length);
  const byPlace = new Map<string, number>();
  const repeated = new Map<string, number[]>();
  const ordinalOf = placeCounter();
  for (let at = 0; at < length; at += 1) {
    const seq = index.seq(at);
    const id = index.messageId(at);
    seqs[at] = seq;
    ordinals[at] = ordinalOf(seq, id);
    if (id === undefined) byPlace.set(`${seq}.${ordinals[at]}`, at);
    // The index finds one place by an id: another place holding it is kept here.
    else if (index.positionOf(id) !== at) repeated.set(id, [...(repeated.get(id) ?? [index.positionOf(id)]), at]);
  }
  for (const places of repeated.values()) places.sort((a, b) => a - b);
  const positionsOf = (id: string) => repeated.get(id) ?? [index.positionOf(id)];
  return { length, seqs, ordinals, positionsOf, byPlace };
}

/** What the first pass knows of each message beyond its place: its key, and where its calls' results stand. */
interface RecordsPlan extends TranscriptPlaces {
  context: RecordContext;
  /** The key of the message at a position, made when its records are (not held for every message at once). */
  keyAt(at: number): string;
  /** For each position, the positions of its calls' results (-1: none). */
  results: number[][];
  /** The positions of the results some call takes: a tool result at any other is a record of its own. */
  taken: ReadonlySet<number>;
  /** Calls with no result from this sequence on are left out: the read stopped at damage inside their turn. */
  unansweredFrom: number;
}

function recordsPlan(whole: SessionRead, sessionId: string): RecordsPlan {
  const index: IndexedTranscript = whole.projection.transcriptIndex;
  const places = placesOf(index);
  const keyAt = (at: number) =>
    messageKey(sessionId, { id: index.messageId(at) }, { seq: places.seqs[at]!, ordinal: places.ordinals[at]! });
  // As `recordsOfMessage` makes records of calls: none of a host's or a local-only message.
  const results = resultPositions(
    places.length,
    (at) => index.completesCall(at),
    (at) => (index.seenByPerson(at) ? index.toolCalls(at).map((call) => index.callId(call.idRef)) : []),
  );
  return {
    ...places,
    context: {
      sessionId,
      workspace: workspaceOf(whole) ?? null,
      title: whole.projection.title ?? null,
    },
    keyAt,
    results,
    taken: new Set(results.flat()),
    unansweredFrom: whole.refusal ? whole.projection.openFrom() : Number.POSITIVE_INFINITY,
  };
}

/**
 * The second pass: each position of the transcript in order, once the message there was read in its
 * final form and `final` says nothing else it waits for is missing; `ready` holds it (and what it
 * waited for) while the caller takes it.
 */
async function* inTranscriptOrder(
  entries: AsyncIterable<readonly TranscriptEntry[]>,
  plan: TranscriptPlaces,
  changed: () => Error,
  final: (at: number, ready: ReadonlyMap<number, TranscriptEntry>) => boolean,
): AsyncGenerator<{ at: number; ready: ReadonlyMap<number, TranscriptEntry> }> {
  // Nothing to give: the first pass's verdict is the answer, whatever the second would meet.
  if (plan.length === 0) return;
  /** Messages read in their final form not given yet, by position. */
  const ready = new Map<number, TranscriptEntry>();
  let next = 0;
  /** How many messages of an id the event at `seq` wrote before this one (a history may hold one id twice). */
  let written = new Map<string, number>();
  // The k-th message of an id an event writes stands at the k-th place of that id not written before the event:
  // it is there in its final form when that place's last writer is this event (else a later one rewrote it).
  const placeOfId = (id: string, seq: number): number | undefined => {
    const places = plan.positionsOf(id);
    if (places.length === 1) return places[0]! >= 0 ? places[0] : undefined;
    const key = `${seq}\0${id}`;
    const nth = written.get(key) ?? 0;
    written.set(key, nth + 1);
    return places.filter((place) => plan.seqs[place]! >= seq)[nth];
  };
  for await (const group of entries) {
    written = new Map();
    const ordinalOf = placeCounter();
    for (const entry of group) {
      const { message, seq } = entry;
      const ordinal = ordinalOf(seq, message.id);
      const at = message.id === undefined ? plan.byPlace.get(`${seq}.${ordinal}`) : placeOfId(message.id, seq);
      // An earlier form of a message written again later, or one the whole read did not keep.
      if (at === undefined || plan.seqs[at] !== seq) continue;
      ready.set(at, entry);
    }
    for (; next < plan.length && ready.has(next) && final(next, ready); next += 1) {
      yield { at: next, ready };
      ready.delete(next);
    }
  }
  // The file no longer holds what the first pass read (cut or rewritten between the passes).
  if (next < plan.length) throw changed();
}

/** The records of the message at `at`, each call with its result, as `indexRecords` gives them of the whole transcript. */
function recordsAt(at: number, plan: RecordsPlan, ready: ReadonlyMap<number, TranscriptEntry>): IndexRecord[] {
  const entry = ready.get(at)!;
  const keyed = { message: entry.message, key: plan.keyAt(at), time: recordTime(entry.message, entry.batchTime) };
  const { said, calls } = recordsOfMessage(keyed, plan.context);
  const alone = plan.taken.has(at) ? undefined : loneResultRecord(keyed, plan.context);
  const records: IndexRecord[] = said ? [said] : alone ? [alone] : [];
  calls.forEach((recorded, index) => {
    const position = plan.results[at]![index]!;
    if (position < 0 && entry.seq >= plan.unansweredFrom) return;
    const result = position < 0 ? undefined : ready.get(position)!;
    const made = recordOfCall(
      recorded,
      result && { message: result.message, time: recordTime(result.message, result.batchTime) },
    );
    if (made) records.push(made);
  });
  return records;
}
