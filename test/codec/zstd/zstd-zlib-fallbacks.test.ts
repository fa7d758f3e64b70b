// The node:zlib backend reuses one zstd context through parts of node:zlib that are not public API. A Node
// that changes them must still read and write the same frames, through the public one-shot functions: each
// part is taken away here in turn. Its messages for a cut frame or bytes after one are what a user reads.
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createZlibZstdBackend } from '../../../src/codec/zstd/zlib-zstd-backend.js';
import { ZstdSizeMismatch } from '../../../src/errors/index.js';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeHasZstd = major > 22 || (major === 22 && minor >= 15);

type Engine = {
  _handle: Record<string, unknown> & {
    writeSync(...args: unknown[]): void;
    onerror(message: string, errno: number): void;
  };
  _writeState: Uint32Array;
  _finishFlushFlag: number;
};
type EngineClass = new (options?: unknown) => Engine;
const real = zlib as unknown as Record<string, unknown> & {
  ZstdDecompress: EngineClass;
  ZstdCompress: EngineClass;
  constants: Record<string, number>;
};

const record = Buffer.from(JSON.stringify({ recordType: 'batch/event', text: 'Hello <world> & co '.repeat(200) }));
const params = {
  [real.constants.ZSTD_c_compressionLevel!]: 3,
  [real.constants.ZSTD_c_windowLog!]: 20,
  [real.constants.ZSTD_c_checksumFlag!]: 1,
  [real.constants.ZSTD_c_contentSizeFlag!]: 1,
};
/** The frame Node's public one-shot function writes for `raw`: what every backend's frame must equal. */
const oneShot = (raw: Buffer) =>
  (zlib as unknown as { zstdCompressSync(raw: Buffer, options: unknown): Buffer }).zstdCompressSync(raw, { params });

/** A class like `Base` whose objects are changed by `change` once made. */
const changed = (Base: EngineClass, change: (engine: Engine) => void): EngineClass =>
  class extends Base {
    constructor(options?: unknown) {
      super(options);
      change(this);
    }
  };

/** The parts the reused contexts need, each taken away in turn. */
const takenAway: Array<[string, (engine: Engine) => void]> = [
  ['the native handle', (engine) => void Object.defineProperty(engine, '_handle', { value: undefined })],
  ["the handle's writeSync", (engine) => void Object.defineProperty(engine._handle, 'writeSync', { value: undefined })],
  ["the handle's reset", (engine) => void Object.defineProperty(engine._handle, 'reset', { value: undefined })],
  [
    'the write state as a Uint32Array',
    (engine) => void Object.defineProperty(engine, '_writeState', { value: [0, 0] }),
  ],
  [
    'the finishing flush flag',
    (engine) => void Object.defineProperty(engine, '_finishFlushFlag', { value: undefined }),
  ],
];

describe.skipIf(!nodeHasZstd)(
  `the node:zlib zstd backend${nodeHasZstd ? '' : ` — skipped: Node ${process.versions.node} has no built-in zstd`}`,
  () => {
    it('is not made without the public zstd functions', () => {
      expect(createZlibZstdBackend({ zlib: { ...real, zstdCompressSync: undefined } })).toBeUndefined();
      expect(createZlibZstdBackend({ zlib: { ...real, zstdDecompressSync: undefined } })).toBeUndefined();
      expect(createZlibZstdBackend({ zlib: real })?.name).toBe('node:zlib');
    });

    it('decodes into the buffer it is given with one reused context, and into a new one with a context per frame', () => {
      const into = Buffer.alloc(record.length + 64);
      const reused = createZlibZstdBackend()!.decompress(oneShot(record), record.length, into);
      expect(reused.buffer).toBe(into.buffer);
      const perFrame = createZlibZstdBackend({ reuseContext: false })!.decompress(oneShot(record), record.length, into);
      expect(perFrame.buffer).not.toBe(into.buffer);
      expect(perFrame.equals(record)).toBe(true);
    });

    it.each(takenAway)('without %s, reads and writes the same frames through the public functions', (_, change) => {
      const backend = createZlibZstdBackend({
        zlib: {
          ...real,
          ZstdDecompress: changed(real.ZstdDecompress, change),
          ZstdCompress: changed(real.ZstdCompress, change),
        },
      })!;
      for (let round = 0; round < 2; round += 1) {
        // A frame longer than declared stops the decoder inside it: the context is reset before the next.
        expect(() => backend.decompress(oneShot(record), 100)).toThrow(ZstdSizeMismatch);
        expect(backend.compress(record).equals(oneShot(record))).toBe(true);
        expect(backend.decompress(oneShot(record), record.length).equals(record)).toBe(true);
      }
    });

    it('writes with the public function when a reused context would write other frames', () => {
      const noChecksum = class extends real.ZstdCompress {
        constructor(options?: { params?: Record<number, number> }) {
          super({ params: { ...options?.params, [real.constants.ZSTD_c_checksumFlag!]: 0 } });
        }
      };
      const backend = createZlibZstdBackend({ zlib: { ...real, ZstdCompress: noChecksum } })!;
      expect(backend.compress(record).equals(oneShot(record))).toBe(true);
    });

    it('says why a frame was not written when the reused context fails, then writes the next frame as before', () => {
      // A context that reports an error for input starting with "E", and says input is left for input starting with "I".
      const failing = changed(real.ZstdCompress, (engine) => {
        const handle = engine._handle;
        const writeSync = handle.writeSync.bind(handle);
        handle.writeSync = (...args: unknown[]) => {
          writeSync(...args);
          const first = (args[1] as Buffer)[0];
          if (first === 0x45) handle.onerror('the context failed', -1);
          if (first === 0x49) engine._writeState[1] = 1;
        };
      });
      const backend = createZlibZstdBackend({ zlib: { ...real, ZstdCompress: failing } })!;
      expect(() => backend.compress(Buffer.from('Error, please'))).toThrow(/^the context failed$/);
      expect(backend.compress(record).equals(oneShot(record))).toBe(true);
      expect(() => backend.compress(Buffer.from('Input left, please'))).toThrow(
        /^zstd did not finish the frame in one call$/,
      );
      expect(backend.compress(record).equals(oneShot(record))).toBe(true);
    });

    it.each([
      ['one reused context', {}],
      ['a context per frame', { reuseContext: false }],
    ])(
      'with %s, says what is wrong with a frame: cut short, bytes after it, longer or shorter than declared',
      (_, options) => {
        const backend = createZlibZstdBackend(options)!;
        const frame = oneShot(record);
        expect(() => backend.decompress(frame.subarray(0, frame.length - 5), record.length)).toThrow(
          /^unexpected end of zstd frame$/,
        );
        // What zstd itself says of bytes that start no frame, as zstd-napi does.
        expect(() => backend.decompress(Buffer.concat([frame, Buffer.alloc(9)]), record.length)).toThrow(
          /^Unknown frame descriptor$/,
        );
        // A skippable frame cut short: zstd's own word where it says one (Node 24), else how many bytes.
        expect(() =>
          backend.decompress(
            Buffer.concat([frame, Buffer.from([0x50, 0x2a, 0x4d, 0x18, 9, 0, 0, 0, 1])]),
            record.length,
          ),
        ).toThrow(/^(unexpected end of file|9 bytes after the end of the zstd frame)$/);
        expect(backend.decompress(frame, record.length).equals(record)).toBe(true);
        expect(() => backend.decompress(frame, record.length - 1)).toThrow(
          new ZstdSizeMismatch('more', record.length - 1),
        );
        expect(() => backend.decompress(frame, record.length + 1)).toThrow(
          new ZstdSizeMismatch(record.length, record.length + 1),
        );
      },
    );
  },
);
