import { describe, expect, it } from 'vitest';
import { createZlibZstdBackend } from '../src/codec/zlib-zstd-backend.js';
import { createZstdNapiBackend } from '../src/codec/zstd-napi-backend.js';
import { ZstdSizeMismatch, type ZstdBackend } from '../src/codec/zstd-backend.js';

const record = Buffer.from(JSON.stringify({ recordType: 'batch/event', text: 'Hello <world> & co '.repeat(200) }));
const zlibBackend = createZlibZstdBackend();
const backends: ZstdBackend[] = [createZstdNapiBackend(), ...(zlibBackend ? [zlibBackend] : [])];

describe.each(backends.map((backend) => [backend.name, backend] as const))('the %s zstd backend', (_, backend) => {
  it('writes frames as Reasonix does: checksum and content size on, a window of at most 1 MiB', () => {
    const frame = backend.compress(record);
    expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
    const descriptor = frame[4]!;
    expect(descriptor & 0x04).toBe(0x04); // content checksum flag
    expect(descriptor >> 6).toBeGreaterThan(0); // content size present
    if ((descriptor & 0x20) === 0) {
      const windowLog = 10 + (frame[5]! >> 3);
      expect(windowLog).toBeLessThanOrEqual(20);
    }
    expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
  });

  it('refuses a frame that decodes to another length than declared, either way', () => {
    const frame = backend.compress(record);
    expect(() => backend.decompress(frame, record.length - 1)).toThrow(ZstdSizeMismatch);
    expect(() => backend.decompress(frame, record.length + 1)).toThrow(ZstdSizeMismatch);
  });

  it("reads every other backend's frames", () => {
    for (const other of backends) expect(backend.decompress(other.compress(record), record.length).equals(record)).toBe(true);
  });
});

describe.skipIf(zlibBackend !== undefined)('node:zlib zstd', () => {
  it(`is absent on Node ${process.versions.node} (it arrives in 22.15), so zstd-napi is used`, () => {
    expect(zlibBackend).toBeUndefined();
  });
});
