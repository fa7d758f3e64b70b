import { ZstdUnavailableError } from '../../errors/index.js';
import { createZlibZstdBackend } from './zlib-zstd-backend.js';
import { createZstdNapiBackend } from './zstd-napi-backend.js';
import type { ZstdBackend } from './zstd-backend.js';

let chosen: ZstdBackend | undefined;

/**
 * The backend, chosen the first time a frame is read or written: Node's built-in zstd where the
 * running Node has it (22.15 and later), else the optional zstd-napi addon. Choosing late keeps
 * `import` of the library working on a Node that has neither; the first frame then throws
 * `ZstdUnavailableError`, one line saying what to install.
 */
export function zstdBackend(): ZstdBackend {
  // Stryker disable next-line ConditionalExpression: the backend chosen again on every call: the same one, only slower
  if (chosen) return chosen;
  chosen = createZlibZstdBackend();
  // Stryker disable next-line ConditionalExpression: the backend chosen again on every call: the same one, only slower
  if (!chosen) {
    try {
      chosen = createZstdNapiBackend();
    } catch (error) {
      throw new ZstdUnavailableError(
        `no zstd: Node ${process.versions.node} has none built in and the optional zstd-napi addon did not load; ` +
          'use Node 22.15 or later, or run `npm install zstd-napi` (`npm rebuild zstd-napi` if it was installed with --ignore-scripts)',
        { cause: error },
      );
    }
  }
  return chosen;
}

/** zstd for the codec: each call goes to the backend `zstdBackend()` chose. */
export const zstd: ZstdBackend = {
  // Stryker disable next-line BlockStatement: the backend's name read through the codec's object: only inspect's report shows it, in a child process
  get name() {
    return zstdBackend().name;
  },
  compress: (raw) => zstdBackend().compress(raw),
  decompress: (frame, rawSize, into) => zstdBackend().decompress(frame, rawSize, into),
};
