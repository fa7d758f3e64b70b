import { createRequire } from 'node:module';
import type { Compressor as CompressorClass } from 'zstd-napi';
import type { DCtx as DCtxClass } from 'zstd-napi/binding.js';
import { WRITE_LEVEL, WRITE_WINDOW_LOG, type ZstdBackend } from './zstd-backend.js';
import { ZstdSizeMismatch } from '../../errors/index.js';

/**
 * zstd through the optional `zstd-napi` addon: synchronous, one context reused for every frame.
 * Loaded only when called (a Node with built-in zstd never loads it), so an addon that is absent
 * or was never built breaks nothing until a Node without zstd needs it; then this throws what
 * loading it threw.
 */
export function createZstdNapiBackend(): ZstdBackend {
  const require = createRequire(import.meta.url);
  const { Compressor } = require('zstd-napi') as { Compressor: typeof CompressorClass };
  const { DCtx } = require('zstd-napi/binding.js') as { DCtx: typeof DCtxClass };
  const compressor = new Compressor();
  compressor.setParameters({
    compressionLevel: WRITE_LEVEL,
    windowLog: WRITE_WINDOW_LOG,
    checksumFlag: true,
    contentSizeFlag: true,
  });
  const dctx = new DCtx();
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
      // Stryker disable next-line EqualityOperator: inside the branch where written !== rawSize: never equal there
      if (written !== rawSize) throw new ZstdSizeMismatch(written > rawSize ? 'more' : written, rawSize);
      return out.subarray(0, rawSize);
    },
  };
}
