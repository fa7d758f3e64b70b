import { Compressor } from 'zstd-napi';
import binding from 'zstd-napi/binding.js';
import { WRITE_LEVEL, WRITE_WINDOW_LOG, ZstdSizeMismatch, type ZstdBackend } from './zstd-backend.js';

/** zstd through the `zstd-napi` binding: synchronous, one context reused for every frame. */
export function createZstdNapiBackend(): ZstdBackend {
  const compressor = new Compressor();
  compressor.setParameters({
    compressionLevel: WRITE_LEVEL,
    windowLog: WRITE_WINDOW_LOG,
    checksumFlag: true,
    contentSizeFlag: true,
  });
  const dctx = new binding.DCtx();
  return {
    name: 'zstd-napi',
    compress: (raw) => compressor.compress(raw),
    decompress(frame, rawSize, into) {
      // One spare byte: a frame that would write past rawSize fails inside zstd
      // ("destination buffer too small") or shows up as rawSize + 1, never as an overrun.
      const out = into ? into.subarray(0, rawSize + 1) : Buffer.allocUnsafe(rawSize + 1);
      let written: number;
      try {
        written = dctx.decompress(out, frame);
      } catch (error) {
        if (/too small/i.test(String(error))) throw new ZstdSizeMismatch('more', rawSize);
        throw error;
      }
      if (written !== rawSize) throw new ZstdSizeMismatch(written > rawSize ? 'more' : written, rawSize);
      return out.subarray(0, rawSize);
    },
  };
}
