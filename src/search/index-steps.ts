import { BatchChangedError, CursorMismatchError, LogCutWhileReadError, RxError } from '../errors/index.js';
import { openSession, type OpenedSession } from '../store/open-session.js';
import type { RecordChange } from '../session/replay/index-records.js';
import type { RecordsCursor } from '../session/cursors/records-since.js';
import type { TranscriptWrites, WrittenMessage } from '../session/cursors/transcript-writes.js';
import { contentFileOf } from '../store/listing/content-stamp.js';
import { readUpToTooLarge } from '../store/jsonl/transcript-records.js';
import { textSizeOf } from './documents.js';
import { damageOf, type SearchSource } from './search-sources.js';

/**
 * Records (and characters of their text) one step holds: the index writes each step into its open
 * transaction, so this is what bounds a build's memory, whatever the session's size (a 1 GiB
 * session's build peaked at 277 MiB holding 20,000 records, at 229 MiB holding 1,000).
 */
export const RECORDS_PER_STEP = 1_000;
export const CHARACTERS_PER_STEP = 1024 * 1024;

/** What a session's own records say of it: its title and workspace, as a records piece gives them. */
export interface SessionSays {
  title?: string | null;
  workspace?: string | null;
}

/**
 * One step of reading a session into the index, in order; plain data, so that a step read on
 * another thread crosses as it is.
 * - `restart`: what the index holds of the session is dropped, and its fields start again.
 * - `write`: records to apply, the transcript's writes (hits are placed from them), what the session
 *   says of itself, the content-store files its records came from, and the cursor they bring it to
 *   (null for a transcript, which is read whole).
 * - `unopenable`: the session could not be opened; the index keeps it, with nothing but the damage.
 * - `end`: the read is over; `damage` says where it stopped short, and `changing` that it stopped because
 *   the log was cut or changed under the read, again on the second read: no damage of the session's own,
 *   which the index reads again on the next search.
 */
export type IndexStep =
  | { type: 'restart' }
  | {
      type: 'write';
      records: RecordChange[];
      writes: TranscriptWrites[];
      says: SessionSays[];
      contentFiles: string[];
      cursor: string | null;
      /** The characters of text its records hold (`textSizeOf`): what a reader thread holds back by. */
      characters: number;
    }
  | { type: 'unopenable'; damage: string }
  | { type: 'end'; damage: string | null; changing?: boolean };

/** A session to read into the index: from its cursor (a log that grew), or from the start (null). */
export interface IndexJob {
  source: SearchSource;
  cursor: string | null;
}

/**
 * A session read for the index, as steps: from the job's cursor (a log read on from where the index
 * left it), or from the start, which a cursor the log no longer matches (a repair, a salvage) also
 * falls back to. Never throws: what stops the read is the `end` step's damage.
 */
export async function* indexSteps({ source, cursor }: IndexJob): AsyncGenerator<IndexStep> {
  let opened: OpenedSession;
  try {
    opened = await openSession(source.path);
  } catch (error) {
    yield { type: 'unopenable', damage: damageOf(error) };
    return;
  }
  const step = emptyWrite(cursor);
  const take = (records: readonly RecordChange[]) => {
    // One at a time: a piece that rewrites the history holds more records than a call takes arguments.
    for (const record of records) {
      step.records.push(record);
      step.characters += textSizeOf(record);
    }
  };
  const full = () => step.records.length >= RECORDS_PER_STEP || step.characters >= CHARACTERS_PER_STEP;
  // The last piece's cursor, made (its digests read, its filters written out) only once its step is cut: a piece
  // comes after every batch that changed something, and a step keeps only the last one's.
  let latest: RecordsCursor | undefined;
  const settle = () => {
    if (latest) step.cursor = JSON.stringify(latest);
    latest = undefined;
  };
  /** The step so far, and a new one begun. */
  const cut = (): IndexStep => {
    const whole = {
      ...step,
      records: step.records.splice(0),
      writes: step.writes.splice(0),
      says: step.says.splice(0),
      contentFiles: step.contentFiles.splice(0),
    };
    step.characters = 0;
    return whole;
  };
  let damage: string | null = null;
  let changing = false;
  try {
    if (opened.format === 'v4') {
      let given: unknown;
      try {
        given = cursor === null ? undefined : JSON.parse(cursor);
      } catch {
        given = undefined;
      }
      const readFrom = async function* (from: unknown): AsyncGenerator<IndexStep> {
        for await (const piece of opened.recordsSince(from as never, { cursorAtEnd: true })) {
          if (piece.session) step.says.push(piece.session);
          if (piece.contentFiles) step.contentFiles.push(...piece.contentFiles);
          if (piece.transcript) step.writes.push(piece.transcript);
          latest = piece.cursor;
          take(piece.records);
          if (full()) {
            settle();
            yield cut();
          }
        }
        settle();
      };
      if (given === undefined) yield { type: 'restart' };
      let from = given;
      for (let readsLeft = 2; ; readsLeft -= 1) {
        try {
          yield* readFrom(from);
          break;
        } catch (error) {
          // Rewritten under its cursor (a repair, a salvage), or cut or changed while it was read (a copy
          // put back over it, Reasonix cutting its torn tail): read again from the start, once.
          const readAgain = (error instanceof CursorMismatchError && from !== undefined) || changedWhileRead(error);
          if (!readAgain || readsLeft === 1) throw error;
          cut();
          latest = undefined;
          step.cursor = null;
          from = undefined;
          yield { type: 'restart' };
        }
      }
    } else {
      // A transcript is read from its start each time: what it held before is dropped with the first write.
      take([{ type: 'removed', key: '', sessionId: opened.id }]);
      // The first title and workspace its records give; a workspace its meta names stands.
      let titled = false;
      let placed = source.workspace !== null;
      try {
        for await (const record of opened.records()) {
          if (!titled && record.title !== null) step.says.push({ title: record.title });
          if (!placed && record.workspace !== null) step.says.push({ workspace: record.workspace });
          titled ||= record.title !== null;
          placed ||= record.workspace !== null;
          take([record]);
          if (full()) yield cut();
        }
      } finally {
        // Its messages (up to damage), as its records read placed them.
        step.writes.push({ whole: true, entries: await transcriptOf(opened) });
      }
    }
  } catch (error) {
    damage = damageOf(error);
    changing = changedWhileRead(error);
    try {
      settle();
    } catch {
      // Its cursor could not be made (the log gone meanwhile): the session is read from the start next time.
      step.cursor = null;
    }
    // The content file the read stopped at: put back or mended, the session is read again.
    const stoppedAt = contentFileOf(error);
    if (stoppedAt !== undefined) step.contentFiles.push(stoppedAt);
  }
  yield cut();
  yield changing ? { type: 'end', damage, changing } : { type: 'end', damage };
}

/** The log was cut or changed while it was read: not damage of its own, but a read to make again. */
function changedWhileRead(error: unknown): boolean {
  return error instanceof LogCutWhileReadError || error instanceof BatchChangedError;
}

function emptyWrite(cursor: string | null): Extract<IndexStep, { type: 'write' }> {
  return { type: 'write', records: [], writes: [], says: [], contentFiles: [], cursor, characters: 0 };
}

/**
 * A transcript's messages as records pieces write them (up to damage, which its records read said),
 * from a read that keeps only its index: a transcript is never held whole for the index.
 */
async function transcriptOf(opened: OpenedSession): Promise<WrittenMessage[]> {
  try {
    const read = () => opened.read({ keep: 'index' });
    const index = (await readUpToTooLarge(opened.path, read)).whole.projection.transcriptIndex;
    return Array.from({ length: index.length }, (_, at) => ({
      id: index.messageId(at) ?? null,
      seen: index.seenByPerson(at),
    }));
  } catch (error) {
    if (!(error instanceof RxError)) throw error;
    return [];
  }
}
