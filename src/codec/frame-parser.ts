import { DamagedStoreError } from './errors.js';
import { FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES, FRAME_MAGIC, type Frame } from './frame.js';
import { zstd } from './zstd.js';
import { ZstdSizeMismatch } from './zstd-backend.js';

/** Bytes at the end of the input that do not make a whole frame: a torn tail, not an error (spec §3.4). */
export interface IncompleteFrame {
  offset: number;
  bytes: number;
  reason: 'short header' | 'short frame';
}

/**
 * A push parser for RX4F frames: feed it chunks of any size (one byte at a time works), take the
 * frames each chunk completes. It holds at most one unfinished frame plus the current chunk, so
 * memory is bounded by the largest frame, never by the log. Sizes are checked before anything is
 * allocated from them.
 */
export class FrameParser {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** Absolute log offset of `buf[0]`. */
  private base: number;

  constructor(
    private readonly file: string | undefined,
    startOffset = 0,
  ) {
    this.base = startOffset;
  }

  *push(chunk: Uint8Array): Generator<Frame> {
    const incoming = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    if (this.pos >= this.buf.length) {
      this.base += this.buf.length;
      this.buf = incoming;
    } else {
      const rest = this.buf.subarray(this.pos);
      this.base += this.pos;
      this.buf = Buffer.concat([rest, incoming]);
    }
    this.pos = 0;
    for (;;) {
      const frame = this.next();
      if (frame === undefined) return;
      yield frame;
    }
  }

  /** What is left once the input has ended: nothing, or a torn tail. */
  finish(): IncompleteFrame | null {
    const left = this.buf.length - this.pos;
    if (left === 0) return null;
    return {
      offset: this.base + this.pos,
      bytes: left,
      reason: left < FRAME_HEADER_BYTES ? 'short header' : 'short frame',
    };
  }

  private next(): Frame | undefined {
    const buf = this.buf;
    const start = this.pos;
    if (buf.length - start < FRAME_HEADER_BYTES) return undefined;
    const offset = this.base + start;
    if (buf.compare(FRAME_MAGIC, 0, 4, start, start + 4) !== 0) {
      throw this.damage('invalid v4 frame magic', offset, {
        expected: 'RX4F',
        found: buf.subarray(start, start + 4).toString('hex'),
      });
    }
    const compressed = buf.readUInt32BE(start + 4);
    const rawSize = buf.readUInt32BE(start + 8);
    for (const [label, size] of [['compressed', compressed], ['raw', rawSize]] as const) {
      if (size < 1 || size > FRAME_BUDGET_BYTES) {
        throw this.damage(`invalid v4 frame ${label} size ${size}`, offset, {
          expected: `1..${FRAME_BUDGET_BYTES}`,
          found: size,
        });
      }
    }
    const end = start + FRAME_HEADER_BYTES + compressed;
    if (buf.length < end) return undefined;
    const body = buf.subarray(start + FRAME_HEADER_BYTES, end);
    let raw: Buffer;
    try {
      raw = zstd.decompress(body, rawSize);
    } catch (error) {
      if (error instanceof ZstdSizeMismatch) {
        throw this.damage(`v4 frame decoded ${error.decoded === 'more' ? `more than ${rawSize}` : error.decoded} bytes, expected ${rawSize}`, offset, {
          expected: rawSize,
          found: error.decoded,
        });
      }
      throw this.damage(`decode v4 frame: ${describeZstdError(error)}`, offset, {});
    }
    this.pos = end;
    return { offset, frameBytes: end - start, raw };
  }

  private damage(message: string, offset: number, data: { expected?: string | number; found?: string | number }) {
    return new DamagedStoreError(message, { file: this.file, offset, ...data });
  }
}

/** zstd's own words, with its checksum failure named as Reasonix names it. */
function describeZstdError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return /checksum/i.test(text) ? `CRC check failed (${text})` : text;
}
