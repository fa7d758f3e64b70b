import { FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES, FRAME_MAGIC, parseFrameHeader, type Frame } from './frame.js';
import { ZstdUnavailableError } from '../errors/index.js';
import { zstd } from './zstd/zstd.js';

/**
 * How far salvage inflates what it scans: a frame that decodes to at most this many times its own
 * bytes is always tried; one that promises more is tried only while everything decoded stays within
 * one frame budget plus this many times the bytes scanned. Records of JSON are far below it, and
 * frames crafted to inflate (a few hundred bytes each promising 8 MiB) cost no more than the reader
 * spends on the one it stops at.
 */
export const SALVAGE_INFLATION = 64;

/**
 * Every frame that still decodes in a damaged region, found by searching for the RX4F magic and
 * trying each candidate: what a salvage can read past the damage. Unlike the strict reader, it
 * skips what it cannot decode instead of stopping. `chunks` are the log's bytes from offset 0 on, in
 * any chunking; at most one frame's bytes are kept beyond the chunk in hand.
 */
export async function* salvageFrames(chunks: AsyncIterable<Buffer>, from: number): AsyncGenerator<Frame> {
  // `window` holds the log's bytes from `base` on; `at` is the next offset to search from.
  let window = Buffer.alloc(0);
  let base = 0;
  let at = from;
  let scanned = 0;
  let decoded = 0;
  const iterator = chunks[Symbol.asyncIterator]();
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      return false;
    }
    // Bytes before `at` are done with: only the candidate and what follows it are kept.
    const keep = Math.max(0, Math.min(at, base + window.length) - base);
    window = Buffer.concat([window.subarray(keep), next.value]);
    base += keep;
    return true;
  };
  for (;;) {
    const found = at - base >= 0 ? window.indexOf(FRAME_MAGIC, at - base) : -1;
    if (found < 0) {
      // No magic in what is here: the last bytes may begin one; keep them and read on.
      at = Math.max(at, base + window.length - (FRAME_MAGIC.length - 1));
      if (!(await more())) return;
      continue;
    }
    const start = base + found;
    at = start;
    if (found + FRAME_HEADER_BYTES > window.length) {
      if (await more()) continue;
      return;
    }
    const header = parseFrameHeader(window, found);
    if (header.fault) {
      at = start + 1;
      continue;
    }
    if (found + header.frameBytes > window.length) {
      if (await more()) continue;
      // The log ends inside it: a torn frame, nothing more to find past it but a magic inside it.
      at = start + 1;
      continue;
    }
    scanned = Math.max(scanned, start + header.frameBytes - from);
    const modest = header.rawBytes <= SALVAGE_INFLATION * header.compressedBytes;
    const affordable = decoded + header.rawBytes <= FRAME_BUDGET_BYTES + SALVAGE_INFLATION * scanned;
    let raw: Buffer | undefined;
    if (modest || affordable) {
      decoded += header.rawBytes;
      try {
        raw = zstd.decompress(window.subarray(found + FRAME_HEADER_BYTES, found + header.frameBytes), header.rawBytes);
        // Stryker disable next-line BlockStatement: raw is still undefined there
      } catch (error) {
        if (error instanceof ZstdUnavailableError) throw error;
        raw = undefined;
      }
    }
    if (raw) {
      yield { offset: start, frameBytes: header.frameBytes, raw };
      at = start + header.frameBytes;
    } else {
      at = start + 1;
    }
  }
}
