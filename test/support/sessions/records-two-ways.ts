import type { IndexRecord } from '../../../src/index.js';
import { indexRecords, keyedMessages } from '../../../src/session/replay/index-records.js';
import type { TranscriptEntry } from '../../../src/session/replay/transcript-index.js';
import { workspaceOf, type SessionRead } from '../../../src/session/verdict/read-session.js';

// A session's records and transcript two ways: held whole (a read that kept every message), and as
// the streamed reads give them (the session read twice).

/** A session's records, and the code of the refusal they end in. */
export interface RecordsRead {
  records: IndexRecord[];
  refusal: string | undefined;
}

/** The records of a session's transcript held whole (a read that kept every message), and its refusal. */
export function recordsHeldWhole(read: SessionRead, sessionId: string): RecordsRead {
  const records = indexRecords(
    keyedMessages(sessionId, read.projection.transcript),
    { sessionId, workspace: workspaceOf(read) ?? null, title: read.projection.title ?? null },
    { unansweredFrom: read.refusal ? read.projection.openFrom() : undefined },
  );
  return { records, refusal: read.refusal?.code };
}

/** What a session's `records()` gives, and the code of the error it ends in. */
export async function recordsStreamed(session: { records(): AsyncIterable<IndexRecord> }): Promise<RecordsRead> {
  const records: IndexRecord[] = [];
  try {
    for await (const record of session.records()) records.push(record);
  } catch (error) {
    return { records, refusal: (error as { code?: string }).code ?? String(error) };
  }
  return { records, refusal: undefined };
}

/** A session's transcript (each message with the event that last wrote it), and the code of the refusal it ends in. */
export interface TranscriptRead {
  entries: TranscriptEntry[];
  refusal: string | undefined;
}

/** The transcript of a read that kept every message, and its refusal. */
export function transcriptHeldWhole(read: SessionRead): TranscriptRead {
  return { entries: [...read.projection.transcript], refusal: read.refusal?.code };
}

/** What a streamed transcript gives, and the code of the error it ends in. */
export async function transcriptStreamed(entries: AsyncIterable<TranscriptEntry>): Promise<TranscriptRead> {
  const given: TranscriptEntry[] = [];
  try {
    for await (const entry of entries) given.push(entry);
  } catch (error) {
    return { entries: given, refusal: (error as { code?: string }).code ?? String(error) };
  }
  return { entries: given, refusal: undefined };
}

/** A session's records and transcript, each with the refusal it ends in. */
export type ReadTwoWays = RecordsRead & { transcript: TranscriptRead };

/** The records and the transcript of a read that kept every message, and its refusal. */
export function heldWholeBoth(read: SessionRead, sessionId: string): ReadTwoWays {
  return { ...recordsHeldWhole(read, sessionId), transcript: transcriptHeldWhole(read) };
}

/** What streamed records and a streamed transcript give, each with the code of the error it ends in. */
export async function streamedBoth(
  records: () => AsyncIterable<IndexRecord>,
  transcript: () => AsyncIterable<TranscriptEntry>,
): Promise<ReadTwoWays> {
  return { ...(await recordsStreamed({ records })), transcript: await transcriptStreamed(transcript()) };
}
