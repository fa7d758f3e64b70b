import { DamagedStoreError, TooLargeError } from '../../errors/index.js';
import type { IndexRecord } from '../../session/replay/index-records.js';
import { Projection } from '../../session/replay/projection.js';
import type { TranscriptEntry } from '../../session/replay/transcript-index.js';
import type { SessionRead } from '../../session/verdict/read-session.js';
import {
  recordsOfTwoPasses,
  transcriptOfTwoPasses,
  type FirstPass,
  type SecondPass,
} from '../../session/verdict/streamed-records.js';
import { migratedRuns, readJsonlSession } from './read-jsonl-session.js';

/**
 * Every index record of a JSONL transcript, as `indexRecords` makes them of it held whole, in the same
 * order, in memory that does not grow with it: two passes, as a log's records are made. The first
 * keeps the transcript's index (the verdict, the title, which message stands where, which result
 * answers which call); the second reads the transcript again, each run of messages replayed on its
 * own, and gives a message's records once it and its calls' results are read. A refusal is thrown
 * after the records before it, as `read()` reports it.
 */
export async function* transcriptRecords(
  path: string,
  sessionId: string,
  /** The first pass: a read of the transcript that keeps its index (one shared with other reads of it). */
  firstPass: FirstPass = () => readJsonlSession(path, { keep: 'index' }),
): AsyncGenerator<IndexRecord> {
  yield* twoPassesOfTranscript(path, firstPass, (whole, entries, changed) =>
    recordsOfTwoPasses(whole, sessionId, entries, changed),
  );
}

/** The transcript's messages in order, each in its final form, as `transcriptRecords` reads it: two passes, memory flat. */
export async function* transcriptEntries(
  path: string,
  firstPass: FirstPass = () => readJsonlSession(path, { keep: 'index' }),
): AsyncGenerator<TranscriptEntry> {
  yield* twoPassesOfTranscript(path, firstPass, transcriptOfTwoPasses);
}

async function* twoPassesOfTranscript<T>(path: string, firstPass: FirstPass, second: SecondPass<T>): AsyncGenerator<T> {
  const { whole, tooLarge } = await readUpToTooLarge(path, firstPass);
  yield* second(
    whole,
    replayedRuns(path, whole),
    () =>
      new DamagedStoreError(`the transcript changed between its two reads: messages the first held are not there`, {
        file: path,
      }),
  );
  if (tooLarge) throw tooLarge;
}

/**
 * The first pass; for a transcript with a message longer than rxstore reads, a read of the messages
 * before it, and that message's error, for the caller to give them and then end in it.
 */
export async function readUpToTooLarge(
  path: string,
  firstPass: FirstPass,
): Promise<{ whole: SessionRead; tooLarge?: TooLargeError }> {
  try {
    return { whole: await firstPass() };
  } catch (error) {
    if (!(error instanceof TooLargeError) || !error.data.offset) throw error;
    // With the previews of what was typed, as the shared index read keeps them (a page's header needs them).
    const whole = await readJsonlSession(path, { keep: 'index', previews: true, end: error.data.offset });
    // No message before the long one (only blank lines): nothing to give, and a read of none would call it empty.
    if (whole.lastSequence === 0) throw error;
    return { whole, tooLarge: error };
  }
}

/**
 * The transcript's runs up to the messages the first pass loaded, each replayed on its own: the entries
 * it writes. The bytes the first pass read are read again, no more (lines appended since are left for a
 * later read); other bytes than it read (the transcript written over between the reads, its messages
 * where they were) end it in an error after the last: what was given is not one transcript.
 */
async function* replayedRuns(path: string, whole: SessionRead): AsyncGenerator<readonly TranscriptEntry[]> {
  let seqBefore = 0;
  let through: string | undefined;
  for await (const run of migratedRuns(path, whole.readEnd)) {
    if (seqBefore >= whole.lastSequence) break;
    const projection = new Projection();
    // A transcript's read always sets it: when its messages count as committed (its meta's, else the file's time).
    projection.replayTranscript(run.messages, whole.firstCommitAt!, seqBefore);
    seqBefore += run.messages.length;
    through = run.through;
    yield projection.transcript;
  }
  if (whole.readDigest !== undefined && through !== whole.readDigest)
    throw new DamagedStoreError('the transcript was written over between its two reads: read it again', { file: path });
}
