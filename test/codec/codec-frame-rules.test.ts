// The RX4F frame rules at their edges (spec §3): both sizes in 1..8 MiB, the decoded length exactly
// the declared one, what is left at the end of the input a torn tail of the right kind and size.
import { describe, expect, it } from 'vitest';
import { DamagedStoreError } from '../../src/errors/index.js';
import { encodeFrame, FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES } from '../../src/codec/frame.js';
import { FrameParser } from '../../src/codec/frame-parser.js';
import { salvageFrames } from '../../src/codec/salvage-frames.js';
import type { Frame } from '../../src/codec/frame.js';

/** What salvage finds in a log given a few bytes at a time (a large one whole): any chunking finds the same. */
async function salvaged(log: Buffer, from: number): Promise<Frame[]> {
  const size = log.length < 1000 ? 3 : log.length;
  async function* chunks() {
    for (let at = 0; at < log.length; at += size) yield log.subarray(at, at + size);
  }
  const found: Frame[] = [];
  for await (const frame of salvageFrames(chunks(), from)) found.push(frame);
  return found;
}
import { zstd } from '../../src/codec/zstd/zstd.js';
import { seededRandom } from '../support/seeded-random.js';

const record = Buffer.from('{"schemaVersion":4}');
const withHeader = (frame: Buffer, compressed: number, raw: number) => {
  const copy = Buffer.from(frame);
  copy.writeUInt32BE(compressed, 4);
  copy.writeUInt32BE(raw, 8);
  return copy;
};

function parseAll(bytes: Buffer, startOffset = 0) {
  const parser = new FrameParser('log', startOffset);
  const frames = [...parser.push(bytes)];
  return { frames, tail: parser.finish() };
}

const refusal = (bytes: Buffer) => {
  try {
    parseAll(bytes);
  } catch (error) {
    return error as DamagedStoreError;
  }
  throw new Error('accepted');
};

describe('frame header sizes', () => {
  it.each([
    { label: 'compressed', compressed: 0, raw: record.length, found: 0 },
    { label: 'raw', compressed: -1, raw: 0, found: 0 },
    { label: 'compressed', compressed: FRAME_BUDGET_BYTES + 1, raw: record.length, found: FRAME_BUDGET_BYTES + 1 },
    { label: 'raw', compressed: -1, raw: FRAME_BUDGET_BYTES + 1, found: FRAME_BUDGET_BYTES + 1 },
  ])(
    'a $label size of $found is refused before anything is read past the header',
    ({ label, compressed, raw, found }) => {
      const frame = encodeFrame(record);
      const bad = withHeader(frame, compressed === -1 ? frame.length - FRAME_HEADER_BYTES : compressed, raw).subarray(
        0,
        FRAME_HEADER_BYTES,
      );
      const error = refusal(Buffer.concat([encodeFrame(record), bad]));
      expect(error).toBeInstanceOf(DamagedStoreError);
      expect(error.message).toBe(`invalid v4 frame ${label} size ${found}`);
      expect(error.data).toMatchObject({
        file: 'log',
        offset: frame.length,
        expected: `1..${FRAME_BUDGET_BYTES}`,
        found,
      });
    },
  );

  it('a record of exactly 8 MiB is written and read back; one byte more is not written', () => {
    const big = Buffer.alloc(FRAME_BUDGET_BYTES, 0x61);
    const { frames, tail } = parseAll(encodeFrame(big));
    expect(tail).toBeNull();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.raw.equals(big)).toBe(true);
    expect(() => encodeFrame(Buffer.alloc(FRAME_BUDGET_BYTES + 1, 0x61))).toThrow(
      expect.objectContaining({
        code: 'RX_INVALID_INPUT',
        message: `record of ${FRAME_BUDGET_BYTES + 1} bytes is outside the 1..${FRAME_BUDGET_BYTES} frame budget`,
        data: { expected: `1..${FRAME_BUDGET_BYTES}`, found: FRAME_BUDGET_BYTES + 1 },
      }),
    );
    expect(() => encodeFrame(Buffer.alloc(0))).toThrow(
      expect.objectContaining({ code: 'RX_INVALID_INPUT', data: { expected: `1..${FRAME_BUDGET_BYTES}`, found: 0 } }),
    );
  });

  it('a decoded length one more or one less than declared is damage naming both', () => {
    const frame = encodeFrame(record);
    const short = refusal(withHeader(frame, frame.length - FRAME_HEADER_BYTES, record.length + 1));
    expect(short.message).toBe(`v4 frame decoded ${record.length} bytes, expected ${record.length + 1}`);
    expect(short.data).toMatchObject({ offset: 0, expected: record.length + 1, found: record.length });
    const long = refusal(withHeader(frame, frame.length - FRAME_HEADER_BYTES, record.length - 1));
    expect(long.message).toBe(`v4 frame decoded more than ${record.length - 1} bytes, expected ${record.length - 1}`);
  });

  it('the magic is checked first, and named as found', () => {
    const frame = encodeFrame(record);
    frame.write('RX4G', 0, 'ascii');
    const error = refusal(frame);
    expect(error.message).toBe('invalid v4 frame magic');
    expect(error.data).toMatchObject({ offset: 0, expected: 'RX4F', found: Buffer.from('RX4G').toString('hex') });
  });
});

describe('the end of the input', () => {
  const two = Buffer.concat([encodeFrame(record), encodeFrame(Buffer.from('{"b":2}'))]);
  const firstBytes = encodeFrame(record).length;

  it.each([
    { cut: two.length - 1, reason: 'short frame' },
    { cut: firstBytes + FRAME_HEADER_BYTES, reason: 'short frame' },
    { cut: firstBytes + FRAME_HEADER_BYTES - 1, reason: 'short header' },
    { cut: firstBytes + 1, reason: 'short header' },
  ])('cut at $cut: the whole frames, then a $reason torn tail of what is left', ({ cut, reason }) => {
    const { frames, tail } = parseAll(two.subarray(0, cut), 100);
    expect(frames.map((frame) => [frame.offset, frame.frameBytes])).toEqual([[100, firstBytes]]);
    expect(tail).toEqual({ offset: 100 + firstBytes, bytes: cut - firstBytes, reason });
  });

  it('at a frame boundary: no torn tail', () => {
    expect(parseAll(two).tail).toBeNull();
    expect(parseAll(two.subarray(0, firstBytes)).tail).toBeNull();
  });
});

describe('a frame whose body does not decode', () => {
  it('names the checksum failure as Reasonix does, at the frame', () => {
    const good = encodeFrame(Buffer.from('{"a":1}'));
    const broken = Buffer.from(encodeFrame(Buffer.from(`{"c":"${'abc'.repeat(50)}"}`)));
    broken[broken.length - 1]! ^= 0xff;
    const error = refusal(Buffer.concat([good, broken]));
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect(error.message).toMatch(/^decode v4 frame: CRC check failed \(.+\)$/);
    expect(error.data).toEqual({ file: 'log', offset: good.length });
  });
});

describe('salvaging frames', () => {
  it('finds every frame that still decodes past garbage, a bad frame and a magic inside garbage', async () => {
    const a = encodeFrame(Buffer.from('{"a":1}'));
    const b = encodeFrame(Buffer.from('{"b":2}'));
    const broken = Buffer.from(encodeFrame(Buffer.from('{"c":3}')));
    broken[broken.length - 1]! ^= 0xff;
    const fakeMagic = Buffer.concat([Buffer.from('RX4F'), Buffer.alloc(8, 0xff)]);
    const log = Buffer.concat([a, Buffer.from('garbage'), broken, fakeMagic, b]);
    const found = (await salvaged(log, 0)).map((frame) => [frame.offset, frame.raw.toString()]);
    expect(found).toEqual([
      [0, '{"a":1}'],
      [log.length - b.length, '{"b":2}'],
    ]);
    expect((await salvaged(log, 1)).map((frame) => frame.raw.toString())).toEqual(['{"b":2}']);
    // A frame whose body runs past the end is not a frame.
    expect(await salvaged(b.subarray(0, b.length - 1), 0)).toEqual([]);
  });

  /** A frame with any header sizes around a body of `raw` compressed: what a damaged header can claim. */
  const frameOf = (raw: Buffer, declaredRaw = raw.length) => {
    const body = zstd.compress(raw);
    return withHeader(Buffer.concat([Buffer.from('RX4F'), Buffer.alloc(8), body]), body.length, declaredRaw);
  };

  it('gives each frame its offset and length, and stops at a header cut by the end of the log', async () => {
    const a = encodeFrame(Buffer.from('{"a":1}'));
    const b = encodeFrame(Buffer.from('{"b":2}'));
    for (const cut of [4, 8, 11]) {
      const log = Buffer.concat([a, Buffer.from('xx'), b, b.subarray(0, cut)]);
      expect((await salvaged(log, 0)).map((frame) => [frame.offset, frame.frameBytes])).toEqual([
        [0, a.length],
        [a.length + 2, b.length],
      ]);
    }
  });

  it('keeps the frame budget: a record of exactly 8 MiB is found, one byte more or an empty one is not', async () => {
    const budget = frameOf(Buffer.alloc(FRAME_BUDGET_BYTES, 0x20));
    expect((await salvaged(budget, 0)).map((frame) => frame.raw.length)).toEqual([FRAME_BUDGET_BYTES]);
    expect(await salvaged(frameOf(Buffer.alloc(FRAME_BUDGET_BYTES + 1, 0x20)), 0)).toEqual([]);
    expect(await salvaged(frameOf(Buffer.alloc(0)), 0)).toEqual([]);
    expect((await salvaged(frameOf(Buffer.from('7')), 0)).map((frame) => frame.raw.toString())).toEqual(['7']);
  });

  it('keeps the budget on the compressed size too: 8 MiB that does not compress is over it', async () => {
    const random = seededRandom(3);
    const noise = Buffer.from(Array.from({ length: FRAME_BUDGET_BYTES }, () => random.int(256)));
    const frame = frameOf(noise);
    expect(frame.readUInt32BE(4)).toBeGreaterThan(FRAME_BUDGET_BYTES);
    expect(await salvaged(frame, 0)).toEqual([]);
    // The writer refuses to write it, saying so.
    expect(() => encodeFrame(noise)).toThrow(
      expect.objectContaining({
        code: 'RX_INVALID_INPUT',
        message: expect.stringMatching(/^compressed record of \d+ bytes exceeds the frame budget$/),
        data: { expected: `at most ${FRAME_BUDGET_BYTES}`, found: expect.any(Number) },
      }),
    );
  });
});
