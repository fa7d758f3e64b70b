import { Column } from './column.js';

/** Strings are kept in chunks of this many bytes; one longer than a chunk gets a buffer of its own. */
const CHUNK_BYTES = 256 * 1024;
/**
 * The first chunk starts this small and doubles up to a whole chunk: a table is made per replay,
 * and a replay of one batch (an indexer's records since a cursor) or of a small session holds a
 * few ids, where two whole chunks made zeroed up front were most of the time of reading it.
 */
const FIRST_CHUNK_BYTES = 256;
/** The top bit of a string's stored length: its code units take two bytes each. */
const WIDE = 0x8000_0000;

/**
 * Strings interned into byte chunks, each known by a number (its `ref`, in the order first met):
 * what a reader must remember of every operation id or message id costs about its length in
 * bytes and a dozen more, not a heap object each, and the collector has nothing to trace. Only
 * the first chunk is copied as it grows to a whole chunk; the others never are. Exact: a
 * string is stored as its UTF-16 code units — one byte each when all are below 256, else two — so
 * any string, lone surrogates included, comes back as it went in.
 */
export class StringTable {
  private readonly chunks: Buffer[] = [Buffer.allocUnsafe(FIRST_CHUNK_BYTES)];
  /** Bytes used in the last chunk. */
  private used = 0;
  /** Per ref: chunk × CHUNK_BYTES + offset in it, or -1 for a string kept in `long`. */
  private readonly starts = new Column((length) => new Float64Array(length));
  /** Per ref: its byte length, with `WIDE` set when stored two bytes a code unit. */
  private readonly lengths = new Column((length) => new Uint32Array(length));
  private readonly hashes = new Column((length) => new Int32Array(length));
  /** Strings longer than a chunk, by ref. */
  private readonly long = new Map<number, Buffer>();
  /** Open addressing: ref + 1 in each used slot, 0 in an empty one. */
  private slots = new Int32Array(16);
  /** Where `stage` writes a string it is looking up (grown for a string longer than a chunk). */
  private scratch = Buffer.allocUnsafe(FIRST_CHUNK_BYTES);

  /** How many strings the table holds; refs run from 0 to `size - 1`. */
  get size(): number {
    return this.hashes.length;
  }

  /** The ref of `text`, adding it when it is new. */
  intern(text: string): number {
    const staged = this.stage(text);
    const found = this.probe(staged);
    if (found.ref >= 0) return found.ref;
    const ref = this.size;
    this.store(ref, staged);
    this.slots[found.slot] = ref + 1;
    // At most two thirds full: probes stay short.
    if (this.size * 3 > this.slots.length * 2) this.rehash(this.slots.length * 2);
    return ref;
  }

  /** The ref of `text`, or -1 when the table does not hold it. */
  find(text: string): number {
    return this.probe(this.stage(text)).ref;
  }

  /** The refs of those of `texts` the table holds. */
  refsOf(texts: readonly string[]): Set<number> {
    const refs = new Set<number>();
    for (const text of texts) {
      const ref = this.find(text);
      if (ref >= 0) refs.add(ref);
    }
    return refs;
  }

  /** The string a ref stands for. */
  text(ref: number): string {
    const { buffer, start, end } = this.placeOf(ref);
    return buffer.toString((this.lengths.at(ref) & WIDE) !== 0 ? 'utf16le' : 'latin1', start, end);
  }

  /** `text`'s code units written to the scratch buffer, and their hash (FNV-1a). */
  private stage(text: string): { hash: number; wide: boolean; bytes: number } {
    let wide = false;
    for (let at = 0; at < text.length; at += 1) {
      if (text.charCodeAt(at) > 0xff) {
        wide = true;
        break;
      }
    }
    const bytes = text.length * (wide ? 2 : 1);
    if (bytes > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(bytes, this.scratch.length * 2));
    this.scratch.write(text, 0, wide ? 'utf16le' : 'latin1');
    let hash = (wide ? 0x811c9dc5 ^ 1 : 0x811c9dc5) | 0;
    for (let at = 0; at < bytes; at += 1) hash = Math.imul(hash ^ this.scratch[at]!, 0x01000193);
    return { hash, wide, bytes };
  }

  /** The slot holding the staged string (its ref), or the empty slot it would take (ref -1). */
  private probe({ hash, wide, bytes }: { hash: number; wide: boolean; bytes: number }): { ref: number; slot: number } {
    const mask = this.slots.length - 1;
    const length = (bytes | (wide ? WIDE : 0)) >>> 0;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]! - 1;
      if (held < 0) return { ref: -1, slot };
      if (this.hashes.at(held) !== hash || this.lengths.at(held) !== length) continue;
      const { buffer, start, end } = this.placeOf(held);
      if (buffer.compare(this.scratch, 0, bytes, start, end) === 0) return { ref: held, slot };
    }
  }

  /** Copies the staged string into the table as `ref`. */
  private store(ref: number, { hash, wide, bytes }: { hash: number; wide: boolean; bytes: number }): void {
    this.hashes.push(hash);
    this.lengths.push((bytes | (wide ? WIDE : 0)) >>> 0);
    if (bytes > CHUNK_BYTES) {
      this.long.set(ref, Buffer.from(this.scratch.subarray(0, bytes)));
      this.starts.push(-1);
      return;
    }
    if (this.used + bytes > CHUNK_BYTES) {
      this.chunks.push(Buffer.allocUnsafe(CHUNK_BYTES));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    if (this.used + bytes > this.chunks[chunk]!.length) this.growFirstChunk(this.used + bytes);
    this.scratch.copy(this.chunks[chunk]!, this.used, 0, bytes);
    this.starts.push(chunk * CHUNK_BYTES + this.used);
    this.used += bytes;
  }

  /** The first chunk, doubled until it holds `bytes` (never past a whole chunk): its places stay as they were. */
  private growFirstChunk(bytes: number): void {
    let length = this.chunks[0]!.length;
    while (length < bytes) length = Math.min(CHUNK_BYTES, length * 2);
    const grown = Buffer.allocUnsafe(length);
    this.chunks[0]!.copy(grown, 0, 0, this.used);
    this.chunks[0] = grown;
  }

  private placeOf(ref: number): { buffer: Buffer; start: number; end: number } {
    const bytes = this.lengths.at(ref) & ~WIDE;
    const position = this.starts.at(ref);
    if (position < 0) return { buffer: this.long.get(ref)!, start: 0, end: bytes };
    const start = position % CHUNK_BYTES;
    return { buffer: this.chunks[(position - start) / CHUNK_BYTES]!, start, end: start + bytes };
  }

  private rehash(length: number): void {
    this.slots = new Int32Array(length);
    const mask = length - 1;
    for (let ref = 0; ref < this.size; ref += 1) {
      let slot = this.hashes.at(ref) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = ref + 1;
    }
  }
}
