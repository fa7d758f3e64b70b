import { DamagedStoreError, ZstdSizeMismatch, ZstdUnavailableError } from '../errors/index.js';
import { FRAME_HEADER_BYTES, parseFrameHeader, type Frame, type FrameHeader } from './frame.js';
import { zstd } from './zstd/zstd.js';
import { largestWindow, MAX_WINDOW_BYTES } from './zstd/zstd-frame-end.js';

/** Bytes at the end of the input that do not make a whole frame: a torn tail, not an error (docs/format.md §3.4). */
export interface IncompleteFrame {
  offset: number;
  bytes: number;
  reason: 'short header' | 'short frame';
}

export interface FrameParserOptions {
  /**
   * Decode every record into one reused buffer: each frame's `raw` is then good only until the
   * next frame is taken. For readers that hash and parse a record at once (`readBatches` does),
   * this spares an allocation per record, and the garbage collector the work of freeing it.
   */
  transientRaw?: boolean;
}

/**
 * A push parser for RX4F frames: feed it chunks of any size (one byte at a time works), take the
 * frames each chunk completes. Frames are decoded straight out of the chunk; only a frame cut by
 * a chunk boundary is copied, into a buffer of its declared size, so memory is bounded by the
 * largest frame, never by the log. Nothing of a chunk is kept once its frames have been taken, so
 * a source may refill one buffer. Sizes are checked before anything is allocated from them.
 */
export class FrameParser {
  /** Where a cut frame's header is gathered, before its size is known. */
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  /** The start of a frame cut by the last chunk's end: `carried` bytes of `carry`. */
  private carry: Buffer = this.header;
  private carried = 0;
  /** Absolute log offset of the next byte that is not part of a returned frame. */
  private offset: number;
  /** Where records are decoded when they are transient: as large as the largest frame yet. */
  private scratch: Buffer | undefined;

  constructor(
    private readonly file: string | undefined,
    startOffset = 0,
    options: FrameParserOptions = {},
  ) {
    this.offset = startOffset;
    // Stryker disable next-line ConditionalExpression: only how often a buffer is allocated changes, not a byte read
    if (options.transientRaw) this.scratch = Buffer.alloc(0);
  }

  *push(chunk: Uint8Array): Generator<Frame> {
    const input = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let pos = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty carry copies nothing
    if (this.carried > 0) {
      pos = this.fillCarry(input);
      if (this.carried < this.carry.length) return;
      const frame = this.decode(this.carry, 0, parseFrameHeader(this.carry), this.offset);
      this.carried = 0;
      this.carry = this.header;
      this.offset += frame.frameBytes;
      yield frame;
    }
    // Stryker disable next-line EqualityOperator: a remainder of exactly a header is never a whole frame (a body is at least 1 byte)
    while (input.length - pos >= FRAME_HEADER_BYTES) {
      const header = this.checkedHeader(input, pos, this.offset);
      if (input.length - pos < header.frameBytes) break;
      const frame = this.decode(input, pos, header, this.offset);
      pos += frame.frameBytes;
      this.offset += frame.frameBytes;
      yield frame;
    }
    this.fillCarry(input.subarray(pos));
  }

  /** What is left once the input has ended: nothing, or a torn tail. */
  finish(): IncompleteFrame | null {
    if (this.carried === 0) return null;
    return {
      offset: this.offset,
      bytes: this.carried,
      reason: this.carried < FRAME_HEADER_BYTES ? 'short header' : 'short frame',
    };
  }

  /**
   * Moves bytes of `input` into the carried frame: its header first, then (once the header has
   * been checked and the frame's size is known) the rest of it. Returns how many were taken.
   */
  private fillCarry(input: Buffer): number {
    let taken = 0;
    // Stryker disable next-line EqualityOperator: a remainder of exactly a header is never a whole frame (a body is at least 1 byte), at the carry's edge
    if (this.carried < FRAME_HEADER_BYTES) {
      // Stryker disable next-line ArithmeticOperator: Buffer.copy stops at the end of the target, which is the header's size
      const copied = input.copy(this.carry, this.carried, 0, FRAME_HEADER_BYTES - this.carried);
      this.carried += copied;
      taken += copied;
      if (this.carried < FRAME_HEADER_BYTES) return taken;
      const whole = Buffer.allocUnsafe(this.checkedHeader(this.carry, 0, this.offset).frameBytes);
      this.carry.copy(whole, 0, 0, FRAME_HEADER_BYTES);
      this.carry = whole;
    }
    // Stryker disable next-line ArithmeticOperator: Buffer.copy stops at the end of the target, which is the frame's size
    const copied = input.copy(this.carry, this.carried, taken, taken + this.carry.length - this.carried);
    this.carried += copied;
    return taken + copied;
  }

  /** The header at `start`, which must be sound (magic, both sizes in budget): a damaged store otherwise. */
  private checkedHeader(buf: Buffer, start: number, offset: number): FrameHeader {
    const header = parseFrameHeader(buf, start);
    if (header.fault)
      throw this.damage(header.fault.message, offset, { expected: header.fault.expected, found: header.fault.found });
    return header;
  }

  /** Decodes the whole frame at `start`, whose header was checked. */
  private decode(buf: Buffer, start: number, header: FrameHeader, offset: number): Frame {
    const rawSize = header.rawBytes;
    const end = start + header.frameBytes;
    const body = buf.subarray(start + FRAME_HEADER_BYTES, end);
    const window = largestWindow(body);
    if (window > MAX_WINDOW_BYTES)
      throw this.damage(
        `decode v4 frame: window size exceeded (the frame declares a window of ${window} bytes; Reasonix decodes with at most ${MAX_WINDOW_BYTES})`,
        offset,
        { expected: MAX_WINDOW_BYTES, found: window },
      );
    let raw: Buffer;
    try {
      raw = zstd.decompress(body, rawSize, this.scratchFor(rawSize));
    } catch (error) {
      if (error instanceof ZstdUnavailableError) throw error;
      if (error instanceof ZstdSizeMismatch) {
        throw this.damage(
          `v4 frame decoded ${error.decoded === 'more' ? `more than ${rawSize}` : error.decoded} bytes, expected ${rawSize}`,
          offset,
          {
            expected: rawSize,
            found: error.decoded,
          },
        );
      }
      throw this.damage(`decode v4 frame: ${describeZstdError(error)}`, offset, {});
    }
    return { offset, frameBytes: end - start, raw };
  }

  // Stryker disable next-line BlockStatement: only how often a buffer is allocated changes, not a byte read
  private scratchFor(rawSize: number): Buffer | undefined {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only how often a buffer is allocated changes, not a byte read
    if (this.scratch && this.scratch.length <= rawSize) this.scratch = Buffer.allocUnsafe(rawSize + 1);
    return this.scratch;
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
