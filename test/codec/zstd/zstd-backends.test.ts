import { describe, expect, it } from 'vitest';
import { createZlibZstdBackend } from '../../../src/codec/zstd/zlib-zstd-backend.js';
import { createZstdNapiBackend } from '../../../src/codec/zstd/zstd-napi-backend.js';
import { type ZstdBackend } from '../../../src/codec/zstd/zstd-backend.js';
import { zstdBackend } from '../../../src/codec/zstd/zstd.js';
import { ZstdSizeMismatch } from '../../../src/errors/index.js';
import { skippableFrame } from '../../support/faults/faults.js';

const record = Buffer.from(JSON.stringify({ recordType: 'batch/event', text: 'Hello <world> & co '.repeat(200) }));
// Larger than the 1 MiB window and not very compressible, so the frame has to carry a window descriptor.
const bigRecord = Buffer.from(
  Array.from({ length: 3 << 18 }, (_, i) => ((i * 2654435761) >>> 13).toString(36))
    .join(' ')
    .slice(0, 1_500_000),
);

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeHasZstd = major > 22 || (major === 22 && minor >= 15);

const zlibBackend = createZlibZstdBackend();
const zlibOneShot = createZlibZstdBackend({ reuseContext: false });
const backends: Array<[string, ZstdBackend]> = [['zstd-napi', createZstdNapiBackend()]];
if (zlibBackend) backends.push(['node:zlib, one reused context', zlibBackend]);
if (zlibOneShot) backends.push(['node:zlib, one context per frame', zlibOneShot]);

describe(`zstd on Node ${process.versions.node}`, () => {
  it(
    nodeHasZstd
      ? 'is node:zlib, the built-in one (no addon loaded)'
      : 'is the zstd-napi addon: this Node has no built-in zstd',
    () => {
      expect(zlibBackend === undefined).toBe(!nodeHasZstd);
      expect(zstdBackend().name).toBe(nodeHasZstd ? 'node:zlib' : 'zstd-napi');
    },
  );
});

describe.each(backends)('the %s zstd backend', (_, backend) => {
  it('writes a small record as Reasonix does: checksum and content size on', () => {
    const frame = backend.compress(record);
    expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
    const descriptor = frame[4]!;
    expect(descriptor & 0x04).toBe(0x04); // content checksum flag
    expect(descriptor >> 6).toBeGreaterThan(0); // content size present
    expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
  });

  it('writes a record larger than the window with a window of 1 MiB at most', () => {
    const frame = backend.compress(bigRecord);
    const descriptor = frame[4]!;
    expect(descriptor & 0x20).toBe(0); // not single-segment, so byte 5 is the window descriptor
    const exponent = frame[5]! >> 3;
    const mantissa = frame[5]! & 0x07;
    const windowSize = 2 ** (10 + exponent) * (1 + mantissa / 8);
    expect(windowSize).toBeLessThanOrEqual(1 << 20);
    expect(backend.decompress(frame, bigRecord.length).equals(bigRecord)).toBe(true);
  });

  it('refuses a frame that decodes to another length than declared, either way', () => {
    const frame = backend.compress(record);
    expect(() => backend.decompress(frame, record.length - 1)).toThrow(ZstdSizeMismatch);
    expect(() => backend.decompress(frame, record.length + 1)).toThrow(ZstdSizeMismatch);
  });

  it('refuses a frame cut before its checksum, bytes after a frame, and a wrong checksum', () => {
    const frame = backend.compress(record);
    expect(() => backend.decompress(frame.subarray(0, frame.length - 4), record.length)).toThrow();
    expect(() => backend.decompress(frame.subarray(0, frame.length - 1), record.length)).toThrow();
    expect(() => backend.decompress(Buffer.concat([frame, Buffer.from([0, 0, 0, 0])]), record.length)).toThrow();
    const flipped = Buffer.from(frame);
    flipped[flipped.length - 1]! ^= 0x01;
    expect(() => backend.decompress(flipped, record.length)).toThrow(/checksum/i);
  });

  it('passes over skippable frames after the frame, and refuses anything else there', () => {
    const frame = backend.compress(record);
    const skippable = (size: number, claimed = size) => skippableFrame(Buffer.alloc(size, 0x5a), { claimed });
    expect(backend.decompress(Buffer.concat([frame, skippable(0)]), record.length).equals(record)).toBe(true);
    expect(backend.decompress(Buffer.concat([frame, skippable(5), skippable(0)]), record.length).equals(record)).toBe(
      true,
    );
    // Eight bytes that are not a skippable frame, and a skippable frame longer than the bytes left.
    expect(() => backend.decompress(Buffer.concat([frame, Buffer.alloc(8)]), record.length)).toThrow();
    expect(() => backend.decompress(Buffer.concat([frame, skippable(5, 6)]), record.length)).toThrow();
  });

  it('decodes the next frames correctly after refusing one longer than declared', () => {
    const frame = backend.compress(record);
    // Declared far shorter than it is: the decoder stops inside the frame, with most of it unread.
    expect(() => backend.decompress(frame, 100)).toThrow(new ZstdSizeMismatch('more', 100));
    expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
    expect(() => backend.decompress(frame, record.length - 1)).toThrow(ZstdSizeMismatch);
    expect(backend.decompress(backend.compress(bigRecord), bigRecord.length).equals(bigRecord)).toBe(true);
  });

  it('decodes the next frame correctly after refusing a damaged one', () => {
    const frame = backend.compress(record);
    const flipped = Buffer.from(frame);
    flipped[flipped.length - 1]! ^= 0x01;
    expect(() => backend.decompress(flipped, record.length)).toThrow();
    expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
  });
});

// Made inside the test, not once when the file loads: what a backend is made with is part of what is checked.
const factories: Array<[string, () => ZstdBackend | undefined]> = [
  ['zstd-napi', () => createZstdNapiBackend()],
  ['node:zlib', () => createZlibZstdBackend()],
  ['node:zlib, one context per frame', () => createZlibZstdBackend({ reuseContext: false })],
];
describe.each(factories.filter(([, make]) => make() !== undefined))(
  'a %s backend made when it is asked for',
  (_, make) => {
    it('writes frames with a checksum, the content size and a window of 1 MiB at most', () => {
      const backend = make()!;
      for (const raw of [record, bigRecord]) {
        const frame = backend.compress(raw);
        const descriptor = frame[4]!;
        expect(descriptor & 0x04).toBe(0x04);
        expect(descriptor >> 6).toBeGreaterThan(0);
        if ((descriptor & 0x20) === 0)
          expect(2 ** (10 + (frame[5]! >> 3)) * (1 + (frame[5]! & 0x07) / 8)).toBeLessThanOrEqual(1 << 20);
        expect(backend.decompress(frame, raw.length).equals(raw)).toBe(true);
      }
    });
  },
);

/** A frame damaged in one byte (`at` from its start, or from its end when negative), or given another size than it holds. */
const DAMAGE: Array<[string, (frame: Buffer) => Buffer, (size: number) => number]> = [
  ['its magic number', (frame) => flip(frame, 2), (size) => size],
  ['its frame header', (frame) => flip(frame, 4), (size) => size],
  ['a byte of its first block', (frame) => flip(frame, 12), (size) => size],
  ['its checksum', (frame) => flip(frame, -1), (size) => size],
  ['declared shorter than it is', (frame) => frame, (size) => size - 1],
  ['declared longer than it is', (frame) => frame, (size) => size + 1],
];

function flip(frame: Buffer, at: number): Buffer {
  const copy = Buffer.from(frame);
  const where = at < 0 ? copy.length + at : at;
  copy[where]! ^= 0xff;
  return copy;
}

/** What `decompress` threw, as its class and message; undefined when it did not throw. */
function refusal(decode: () => unknown): string | undefined {
  try {
    decode();
    return undefined;
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

describe.each(factories.filter(([, make]) => make() !== undefined))(
  'a %s backend in a long-running process',
  (_, make) => {
    // A reader of many sessions (ls, a search index, an indexer) decodes frame after frame in one backend.
    it.each(DAMAGE)(
      'refuses a frame damaged in %s after a whole one as a new backend does, and decodes the next whole frame',
      (_what, damage, declared) => {
        const backend = make()!;
        const frame = backend.compress(record);
        expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
        const said = refusal(() => backend.decompress(damage(frame), declared(record.length)));
        expect(said).toBeDefined();
        expect(said).toBe(refusal(() => make()!.decompress(damage(frame), declared(record.length))));
        expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
        expect(backend.decompress(backend.compress(bigRecord), bigRecord.length).equals(bigRecord)).toBe(true);
      },
    );
  },
);

describe.each(backends.filter(([, backend]) => backend !== zlibOneShot))('the %s zstd backend', (_, backend) => {
  it('decodes into the buffer it is given, so reading allocates nothing per record', () => {
    const into = Buffer.alloc(record.length + 64);
    const out = backend.decompress(backend.compress(record), record.length, into);
    expect(out.buffer).toBe(into.buffer);
    expect(out.byteOffset).toBe(into.byteOffset);
    expect(into.subarray(0, record.length).equals(record)).toBe(true);
  });
});

describe.skipIf(backends.length < 2)(
  `zstd backends side by side${backends.length < 2 ? ` — skipped: Node ${process.versions.node} has no built-in zstd to compare with zstd-napi` : ''}`,
  () => {
    it("each reads every other backend's frames, small and large", () => {
      for (const [, writer] of backends) {
        for (const [, reader] of backends) {
          if (reader === writer) continue;
          expect(reader.decompress(writer.compress(record), record.length).equals(record)).toBe(true);
          expect(reader.decompress(writer.compress(bigRecord), bigRecord.length).equals(bigRecord)).toBe(true);
        }
      }
    });
  },
);
