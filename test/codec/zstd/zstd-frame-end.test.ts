// Where a zstd frame ends, found from its headers alone (RFC 8878 §3.1.1), and the skippable frames that may
// follow it inside a record's frame (§3.1.2). The node:zlib backend relies on both to tell a whole frame from
// a cut one or from bytes after it; these are frames Reasonix never writes but a damaged or foreign log holds.
import { describe, expect, it } from 'vitest';
import { skippableFramesEnd, zstdContentSize, zstdFrameEnd } from '../../../src/codec/zstd/zstd-frame-end.js';
import { zstdBackend } from '../../../src/codec/zstd/zstd.js';
import { skippableFrame } from '../../support/faults/faults.js';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/** A block header: last flag, type (0 raw, 1 RLE, 2 compressed), size. */
const block = (last: boolean, type: number, size: number) => {
  const header = (size << 3) | (type << 1) | (last ? 1 : 0);
  return [header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff];
};
const frame = (...parts: number[][]) => Buffer.from(parts.flat());
const skippable = (magicLow: number, content: number[]) => skippableFrame(Buffer.from(content), { magicLow });

describe('zstdFrameEnd', () => {
  it('is the length of every frame the writer makes, one block or many', () => {
    const small = zstdBackend().compress(Buffer.from('{"recordType":"batch/begin"}'));
    const large = zstdBackend().compress(
      Buffer.from(Array.from({ length: 400_000 }, (_, i) => ((i * 2654435761) >>> 7).toString(36)).join('')),
    );
    expect(zstdFrameEnd(small)).toBe(small.length);
    expect(zstdFrameEnd(large)).toBe(large.length);
  });

  it('is undefined for every frame cut short, and the same with bytes after it', () => {
    const whole = zstdBackend().compress(Buffer.from('{"recordType":"batch/event","text":"hello hello hello"}'));
    for (let length = 0; length < whole.length; length += 1)
      expect(zstdFrameEnd(whole.subarray(0, length)), `cut to ${length}`).toBeUndefined();
    expect(zstdFrameEnd(Buffer.concat([whole, Buffer.from([1, 2, 3])]))).toBe(whole.length);
  });

  it('reads each header field the descriptor announces: window, dictionary id, content size of 1, 2, 4 or 8 bytes, checksum', () => {
    const raw3 = [...block(true, 0, 3), 0x61, 0x62, 0x63];
    // Single segment (0x20): no window byte; a 1-byte content size.
    expect(zstdFrameEnd(frame(MAGIC, [0x20, 3], raw3))).toBe(4 + 2 + 6);
    // Not single segment, no content size: a window byte.
    expect(zstdFrameEnd(frame(MAGIC, [0x00, 0x00], raw3))).toBe(4 + 2 + 6);
    // A dictionary id of 1, 2 and 4 bytes (flag 1, 2, 3), single segment.
    expect(zstdFrameEnd(frame(MAGIC, [0x21, 7, 3], raw3))).toBe(4 + 3 + 6);
    expect(zstdFrameEnd(frame(MAGIC, [0x22, 7, 0, 3], raw3))).toBe(4 + 4 + 6);
    expect(zstdFrameEnd(frame(MAGIC, [0x23, 7, 0, 0, 0, 3], raw3))).toBe(4 + 6 + 6);
    // Content sizes of 2, 4 and 8 bytes (a 2-byte size is stored less 256).
    expect(zstdFrameEnd(frame(MAGIC, [0x40, 0x00, 0, 0], raw3))).toBe(4 + 4 + 6);
    expect(zstdFrameEnd(frame(MAGIC, [0x80, 0x00, 3, 0, 0, 0], raw3))).toBe(4 + 6 + 6);
    expect(zstdFrameEnd(frame(MAGIC, [0xc0, 0x00, 3, 0, 0, 0, 0, 0, 0, 0], raw3))).toBe(4 + 10 + 6);
    // A checksum (0x04): four bytes after the last block.
    expect(zstdFrameEnd(frame(MAGIC, [0x24, 3], raw3, [1, 2, 3, 4]))).toBe(4 + 2 + 6 + 4);
    expect(zstdFrameEnd(frame(MAGIC, [0x24, 3], raw3, [1, 2, 3]))).toBeUndefined();
  });

  it('counts one byte for an RLE block whatever its size, and walks blocks up to the last one', () => {
    const rle = [...block(false, 1, 1000), 0x61];
    const last = [...block(true, 0, 2), 0x62, 0x63];
    expect(zstdFrameEnd(frame(MAGIC, [0x00, 0x00], rle, last))).toBe(4 + 2 + 4 + 5);
    // An empty last block that is the frame's last three bytes.
    expect(zstdFrameEnd(frame(MAGIC, [0x20, 0], block(true, 0, 0)))).toBe(4 + 2 + 3);
    // The block headers stop before a last block.
    expect(zstdFrameEnd(frame(MAGIC, [0x00, 0x00], rle))).toBeUndefined();
    expect(zstdFrameEnd(frame(MAGIC, [0x00, 0x00], rle, block(true, 0, 2), [0x62]))).toBeUndefined();
  });
});

describe('skippableFramesEnd', () => {
  const base = Buffer.from([9, 9, 9]);
  it('passes over skippable frames of any of the sixteen magics, empty ones included', () => {
    expect(skippableFramesEnd(base, 3)).toBe(3);
    expect(skippableFramesEnd(Buffer.concat([base, skippable(0, [])]), 3)).toBe(11);
    expect(skippableFramesEnd(Buffer.concat([base, skippable(15, [1, 2]), skippable(0, [3])]), 3)).toBe(3 + 10 + 9);
  });

  it('stops at anything else: another magic, a skippable frame longer than what is left, fewer than 8 bytes', () => {
    const notMagic = Buffer.alloc(8);
    notMagic.writeUInt32LE(0x184d2a60, 0);
    expect(skippableFramesEnd(Buffer.concat([base, notMagic]), 3)).toBe(3);
    expect(skippableFramesEnd(Buffer.concat([base, Buffer.alloc(8)]), 3)).toBe(3);
    expect(skippableFramesEnd(Buffer.concat([base, skippable(0, [1, 2, 3]).subarray(0, 10)]), 3)).toBe(3);
    expect(skippableFramesEnd(Buffer.concat([base, skippable(0, []), skippable(0, []).subarray(0, 7)]), 3)).toBe(11);
  });
});

describe('zstdContentSize', () => {
  it('is the size every frame the writer makes declares, across the header forms', () => {
    for (const length of [0, 1, 255, 256, 300, 65_791, 65_792, 400_000]) {
      const raw = Buffer.alloc(length, 'a');
      expect(zstdContentSize(zstdBackend().compress(raw)), `${length} bytes`).toBe(length);
    }
  });

  it('is undefined for bytes that are no zstd frame, or a frame that declares no size', () => {
    expect(zstdContentSize(Buffer.from('not zstd at all'))).toBeUndefined();
    expect(zstdContentSize(Buffer.from(MAGIC))).toBeUndefined();
    // No single segment, no content size: the descriptor 0x00, a window byte, then one empty raw block.
    expect(zstdContentSize(frame(MAGIC, [0x00, 0x00], block(true, 0, 0)))).toBeUndefined();
    // Eight bytes declared, four there.
    expect(zstdContentSize(frame(MAGIC, [0xc0, 0x00], [1, 2, 3, 4]))).toBeUndefined();
  });
});
