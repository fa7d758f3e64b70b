import * as z from 'zod';
import { IdFilter, idFilterSchema } from './id-filter.js';

/**
 * The most bits each filter grows to: 11 and 1.4 KB of base64 at most in a cursor. Plain ids are one a turn
 * in Reasonix's logs (`turn-finalize:<turn>`): 65,536 bits keep a "maybe" rare up to some 8,000 turns. Numbered
 * ids are told new by their number; their filter answers only for ids that were not.
 */
const PLAIN_BITS = 65536;
const NUMBERED_BITS = 8192;

/**
 * The operation ids a log's batches before a cursor used (docs/format.md §5.3: one may come again only
 * with the same hash), as the cursor carries them, so that a batch appended after it which reuses one is
 * judged as a whole read judges it. Reasonix numbers nearly every operation by the sequence of its batch
 * (`runtime:<turn>:<seq>:<n>`, `messages:turn-admission:<seq>`): an id holding a number greater than
 * every number an earlier id held was certainly never used, which `greatestNumber` tells exactly. The
 * others (`session-create`, `turn-finalize:<turn>`, and numbered ids that do not pass that test) are
 * told by bounded Bloom filters, whose "maybe" the batches before the cursor decide (`operationHashBefore`).
 */
export const OperationsSeenSchema = z.object({
  /** The greatest number an id held as a whole `:`-separated part, in digits without leading zeros; null for none. */
  greatestNumber: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,29})$/)
    .nullable(),
  /** The ids holding no such number. */
  plain: idFilterSchema(PLAIN_BITS),
  /** The ids holding one. */
  numbered: idFilterSchema(NUMBERED_BITS),
});
export type SavedOperationsSeen = z.infer<typeof OperationsSeenSchema>;

/** A longer run of digits is not taken as a number (it stays in a filter): the cursor keeps the greatest as text. */
const MAX_DIGITS = 30;

export class OperationsSeen {
  private constructor(
    private greatest: string | undefined,
    private readonly plain: IdFilter,
    private readonly numbered: IdFilter,
  ) {}

  static none(): OperationsSeen {
    return new OperationsSeen(undefined, IdFilter.none(false, PLAIN_BITS), IdFilter.none(false, NUMBERED_BITS));
  }

  static from(saved: SavedOperationsSeen): OperationsSeen {
    return new OperationsSeen(
      saved.greatestNumber ?? undefined,
      IdFilter.from(saved.plain, false, PLAIN_BITS),
      IdFilter.from(saved.numbered, false, NUMBERED_BITS),
    );
  }

  /**
   * What a cursor at `offset` says was used before it: nothing before the log's start; undefined when it
   * carries nothing (made before cursors carried operation ids), and only the log before it can tell.
   */
  static before(cursor: { offset: number; operations?: SavedOperationsSeen | undefined }): OperationsSeen | undefined {
    if (cursor.offset === 0) return OperationsSeen.none();
    return cursor.operations ? OperationsSeen.from(cursor.operations) : undefined;
  }

  /** Another set holding what this one holds now, changed apart from it from here on. */
  copy(): OperationsSeen {
    return new OperationsSeen(this.greatest, this.plain.copy(), this.numbered.copy());
  }

  /** Whether `operationId` was certainly not taken in; false when it may have been. */
  certainlyNew(operationId: string): boolean {
    const number = greatestNumberIn(operationId);
    if (number === undefined) return !this.plain.mayHold(operationId);
    // No earlier id held a number this great, so none was this one.
    if (this.greatest === undefined || greater(number, this.greatest)) return true;
    return !this.numbered.mayHold(operationId);
  }

  add(operationId: string): void {
    const number = greatestNumberIn(operationId);
    if (number === undefined) {
      this.plain.add(operationId);
      return;
    }
    this.numbered.add(operationId);
    if (this.greatest === undefined || greater(number, this.greatest)) this.greatest = number;
  }

  /** What a cursor keeps, as it stands now, made when asked for (see `IdFilter.snapshot`). */
  snapshot(): () => SavedOperationsSeen {
    const [greatest, plain, numbered] = [this.greatest, this.plain.snapshot(), this.numbered.snapshot()];
    let saved: SavedOperationsSeen | undefined;
    return () => (saved ??= { greatestNumber: greatest ?? null, plain: plain(), numbered: numbered() });
  }
}

/**
 * The greatest `:`-separated part of the id made only of digits (leading zeros dropped), if any of at most
 * `MAX_DIGITS`. A scan of its characters: it runs for every batch a read takes in.
 */
function greatestNumberIn(operationId: string): string | undefined {
  let found: string | undefined;
  for (let start = 0; start <= operationId.length; ) {
    let end = operationId.indexOf(':', start);
    if (end < 0) end = operationId.length;
    if (end > start && end - start <= MAX_DIGITS && allDigits(operationId, start, end)) {
      let first = start;
      while (first < end - 1 && operationId.charCodeAt(first) === 0x30) first += 1;
      const number = operationId.slice(first, end);
      if (found === undefined || greater(number, found)) found = number;
    }
    start = end + 1;
  }
  return found;
}

function allDigits(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at += 1) {
    const code = text.charCodeAt(at);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/** Whether one number, in digits without leading zeros, is greater than another. */
function greater(number: string, than: string): boolean {
  return number.length !== than.length ? number.length > than.length : number > than;
}
