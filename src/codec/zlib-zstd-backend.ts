import * as zlib from 'node:zlib';
import { WRITE_LEVEL, WRITE_WINDOW_LOG, ZstdSizeMismatch, type ZstdBackend } from './zstd-backend.js';

/** The zstd functions `node:zlib` has from Node 22.15 / 23.8 on; absent on Node 20. */
interface ZlibZstd {
  zstdCompressSync(raw: Uint8Array, options: { params: Record<number, number> }): Buffer;
  zstdDecompressSync(frame: Uint8Array, options: { maxOutputLength: number }): Buffer;
  constants: Record<string, number>;
}

/** zstd from `node:zlib`, when the running Node has it; otherwise undefined. */
export function createZlibZstdBackend(): ZstdBackend | undefined {
  const z = zlib as unknown as Partial<ZlibZstd>;
  if (typeof z.zstdCompressSync !== 'function' || typeof z.zstdDecompressSync !== 'function') return undefined;
  const { zstdCompressSync, zstdDecompressSync } = z as ZlibZstd;
  const c = zlib.constants as unknown as Record<string, number>;
  const params: Record<number, number> = {
    [c.ZSTD_c_compressionLevel!]: WRITE_LEVEL,
    [c.ZSTD_c_windowLog!]: WRITE_WINDOW_LOG,
    [c.ZSTD_c_checksumFlag!]: 1,
    [c.ZSTD_c_contentSizeFlag!]: 1,
  };
  return {
    name: 'node:zlib',
    compress: (raw) => zstdCompressSync(raw, { params }),
    decompress(frame, rawSize) {
      let out: Buffer;
      try {
        out = zstdDecompressSync(frame, { maxOutputLength: rawSize });
      } catch (error) {
        if (error instanceof RangeError) throw new ZstdSizeMismatch('more', rawSize);
        throw error;
      }
      if (out.length !== rawSize) throw new ZstdSizeMismatch(out.length, rawSize);
      return out;
    },
  };
}
