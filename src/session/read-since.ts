import { cursorAt, checkCursor, type Cursor } from './cursor.js';
import { join } from 'node:path';
import { readSessionEvents, type ResolvedBatch } from './read-events.js';
import { SESSION_FILES } from './session-files.js';
import { refusalInBatch } from './strict-payload-error.js';

export interface ReadSince {
  /** The batches committed after the cursor, in order; never an unfinished one. */
  batches: ResolvedBatch[];
  /** Where the next read starts: after the last batch returned (the given cursor when none). */
  cursor: Cursor;
}

/**
 * The batches committed since `cursor` (from the beginning without one), at a cost that grows
 * with the new bytes, not the log: reading starts at the cursor's offset. A log rewritten under
 * the cursor is refused with `CursorMismatchError`; a batch Reasonix would refuse (damaged bytes, a
 * payload its decoder rejects) throws its coded error.
 */
export async function readSince(sessionDir: string, sessionId: string, cursor?: Cursor): Promise<ReadSince> {
  if (cursor) await checkCursor(sessionDir, sessionId, cursor);
  const position = { offset: cursor?.offset ?? 0, nextSequence: cursor?.nextSequence ?? 1, writerGeneration: cursor?.writerGeneration ?? 0 };
  const batches: ResolvedBatch[] = [];
  for await (const item of readSessionEvents(sessionDir, { offset: position.offset, nextSequence: position.nextSequence })) {
    if (item.type !== 'batch') continue;
    const refusal = refusalInBatch(item.value, join(sessionDir, SESSION_FILES.log));
    if (refusal) throw refusal;
    batches.push(item.value);
    const { batch } = item.value;
    position.offset = batch.end;
    position.nextSequence = batch.firstSeq + batch.eventCount;
    position.writerGeneration = batch.writerGeneration;
  }
  return { batches, cursor: batches.length > 0 || !cursor ? await cursorAt(sessionDir, sessionId, position) : cursor };
}
