import { FRAME_HEADER_BYTES, FRAME_MAGIC, parseFrameHeader, type Frame } from './frame.js';
import { ZstdUnavailableError } from '../errors/index.js';
import { zstd } from './zstd.js';

/**
 * Every frame that still decodes in a damaged region, found by searching for the RX4F magic and
 * trying each candidate: what a salvage can read past the damage. Unlike the strict reader, it
 * skips what it cannot decode instead of stopping.
 */
export function* salvageFrames(log: Buffer, from: number): Generator<Frame> {
  let at = log.indexOf(FRAME_MAGIC, from);
  while (at >= 0 && at + FRAME_HEADER_BYTES <= log.length) {
    const header = parseFrameHeader(log, at);
    const end = at + header.frameBytes;
    let raw: Buffer | undefined;
    if (!header.fault && end <= log.length) {
      try {
        raw = zstd.decompress(log.subarray(at + FRAME_HEADER_BYTES, end), header.rawBytes);
      } catch (error) {
        if (error instanceof ZstdUnavailableError) throw error;
        raw = undefined;
      }
    }
    if (raw) {
      yield { offset: at, frameBytes: end - at, raw };
      at = log.indexOf(FRAME_MAGIC, end);
    } else {
      at = log.indexOf(FRAME_MAGIC, at + 1);
    }
  }
}
