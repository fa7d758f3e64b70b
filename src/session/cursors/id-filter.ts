import * as z from 'zod';

/**
 * The ids a log's earlier batches used (message ids, tool-call ids), as a records cursor carries
 * them: a Bloom filter of every id (an id it does not hold was never used; one it holds may have
 * been, and the whole log decides) and, for message ids, the greatest (exact: an id after it in
 * text order was never used, which is every new id Reasonix writes, its ids being ULIDs made as
 * time goes on). The filter grows with the ids up to a bound, so a cursor stays small whatever the
 * log: 11 KB of message ids and 22 KB of call ids at most.
 *
 * Saved, a filter holds at most `maxBits` bits, the most its kind grows to: a larger one was never made by
 * rxstore, and would be carried into every later cursor past the cursor's bound.
 */
export function idFilterSchema(maxBits: number) {
  return z.object({
    /** The greatest id taken in, in JavaScript's string order; null for none. */
    greatest: z.string().nullable(),
    /** How many ids were taken in. */
    count: z.number().int().nonnegative(),
    /** The filter's bits, base64; a power of two bits from `MIN_BITS` to `maxBits`. */
    bits: z
      .base64()
      .refine(
        (text) => isFilterSize(Buffer.byteLength(text, 'base64') * 8, maxBits),
        `not a filter size (a power of two bits from ${MIN_BITS} to ${maxBits})`,
      ),
  });
}
export type SavedIdFilter = z.infer<ReturnType<typeof idFilterSchema>>;

const MIN_BITS = 1024;
/** The most bits a filter of message ids grows to (each new id Reasonix writes is told new by its order); one of call ids, twice that. */
export const MESSAGE_ID_BITS = 65536;
export const CALL_ID_BITS = 131072;
/** Bits a filter is given per id before it is doubled. */
const BITS_PER_ID = 16;
/** How many times over a filter read back from a cursor (without its ids) grows when it must. */
const READ_BACK_GROWTH = 8;
const PROBES = 4;

function isFilterSize(bits: number, maxBits: number): boolean {
  return bits >= MIN_BITS && bits <= maxBits && (bits & (bits - 1)) === 0;
}

/** Ids taken in after a frozen copy of a filter, at most this many before a snapshot freezes a new copy. */
const IDS_PER_COPY = 64;

/** A filter as it stood once (never changed after), and the ids it took in after, in order. */
interface Frozen {
  bits: Uint8Array;
  greatest: string | undefined;
  count: number;
  /** The filter's own ids then (`IdFilter.ids`, which only grows: its first `count` are those), if it kept them. */
  ids: string[] | undefined;
  after: string[];
}

export class IdFilter {
  /** The copy snapshots are made from; undefined until the first snapshot. */
  private frozen: Frozen | undefined;

  private constructor(
    private bits: Uint8Array,
    private greatest: string | undefined,
    private count: number,
    private readonly ordered: boolean,
    private readonly maxBits: number,
    /**
     * Every id taken in, in order, while the filter may still grow and began with none: it is then made
     * anew from them at each size. Undefined for one read back from a cursor, and once it is at its bound.
     */
    private ids: string[] | undefined,
  ) {}

  /** No ids; `ordered` keeps the greatest (message ids), and the filter grows to `maxBits`. */
  static none(ordered: boolean, maxBits: number): IdFilter {
    return new IdFilter(new Uint8Array(MIN_BITS / 8), undefined, 0, ordered, maxBits, []);
  }

  static from(saved: SavedIdFilter, ordered: boolean, maxBits: number): IdFilter {
    return new IdFilter(
      new Uint8Array(Buffer.from(saved.bits, 'base64')),
      saved.greatest ?? undefined,
      saved.count,
      ordered,
      maxBits,
      undefined,
    );
  }

  /** Another filter holding what this one holds now, changed apart from it from here on. */
  copy(): IdFilter {
    return new IdFilter(this.bits.slice(), this.greatest, this.count, this.ordered, this.maxBits, this.ids?.slice());
  }

  /** Whether the id may have been taken in: false only when it certainly was not. */
  mayHold(id: string): boolean {
    if (this.count === 0 || (this.ordered && this.greatest !== undefined && id > this.greatest)) return false;
    const size = this.bits.length * 8;
    return probes(id).every((at) => (this.bits[(at & (size - 1)) >>> 3]! & (1 << (at & 7))) !== 0);
  }

  add(id: string): void {
    // Past its bound the frozen copy is let go (the snapshots made of it keep it): the next snapshot freezes another.
    if (this.frozen && this.frozen.after.length >= IDS_PER_COPY) this.frozen = undefined;
    this.frozen?.after.push(id);
    this.count += 1;
    this.ids?.push(id);
    let size = this.bits.length * 8;
    while (this.count * BITS_PER_ID > size && size < this.maxBits) size *= 2;
    if (size > this.bits.length * 8) this.grow(size);
    this.set(id);
    if (this.ordered && (this.greatest === undefined || id > this.greatest)) this.greatest = id;
  }

  /**
   * To `size` bits at least. From its ids where it kept them: each sets its own bits of the new size. Without
   * them (a filter read back from a cursor) the bits are repeated, which keeps every id (each probe is taken
   * modulo the size) but leaves each earlier id the bits of the smaller size in every copy: grown so from 1,024
   * bits to 65,536 one doubling at a time, a filter says "maybe" for some 45 % of new ids at 15,000 ids and 16 %
   * at 4,000, where one made at its size says it for 14 % and 0.2 %. So it grows eight times over at once (some
   * 30 % and 6 %), not straight to its bound, which would make a cursor of some hundred ids 8 KB larger.
   */
  private grow(size: number): void {
    const { ids } = this;
    if (ids) {
      this.bits = new Uint8Array(size / 8);
      // The id being added is in `ids` already: `add` sets its bits again, to no effect.
      for (const id of ids) this.set(id);
      // At its bound the filter grows no more: the ids are not needed again.
      if (size >= this.maxBits) this.ids = undefined;
      return;
    }
    const grown = new Uint8Array(Math.min(this.maxBits, Math.max(size, this.bits.length * 8 * READ_BACK_GROWTH)) / 8);
    for (let at = 0; at < grown.length; at += this.bits.length) grown.set(this.bits, at);
    this.bits = grown;
  }

  private set(id: string): void {
    const size = this.bits.length * 8;
    for (const at of probes(id)) this.bits[(at & (size - 1)) >>> 3]! |= 1 << (at & 7);
  }

  /**
   * What to save, as it stands now, made when asked for. A snapshot costs no copy of the bits: it
   * names a frozen copy and how many ids came after it (a copy is frozen again every 64 ids), and
   * the filter is made again from them when it is read — a read offers a cursor after every batch
   * that changed something, thousands in a first read of a long log, and a caller reads few.
   */
  snapshot(): () => SavedIdFilter {
    this.frozen ??= {
      bits: this.bits.slice(),
      greatest: this.greatest,
      count: this.count,
      ids: this.ids,
      after: [],
    };
    const { frozen } = this;
    const taken = frozen.after.length;
    let saved: SavedIdFilter | undefined;
    return () => {
      if (saved) return saved;
      const made = new IdFilter(
        frozen.bits.slice(),
        frozen.greatest,
        frozen.count,
        this.ordered,
        this.maxBits,
        frozen.ids?.slice(0, frozen.count),
      );
      for (let at = 0; at < taken; at += 1) made.add(frozen.after[at]!);
      const { bits } = made;
      saved = {
        greatest: made.greatest ?? null,
        count: made.count,
        bits: Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength).toString('base64'),
      };
      return saved;
    };
  }
}

/** `PROBES` bit positions for an id: two FNV-1a hashes over its UTF-16 code units, combined (double hashing). */
function probes(id: string): number[] {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let at = 0; at < id.length; at += 1) {
    const unit = id.charCodeAt(at);
    first = Math.imul(first ^ unit, 0x01000193) >>> 0;
    second = Math.imul(second ^ unit, 0x5bd1e995) >>> 0;
  }
  second |= 1;
  return Array.from({ length: PROBES }, (_, index) => (first + Math.imul(index, second)) >>> 0);
}
