import { zstd } from './zstd/zstd.js';
import { InvalidInputError } from '../errors/index.js';

/** RX4F framing constants (docs/format.md §3.1). */
export const FRAME_MAGIC = Buffer.from('RX4F', 'ascii');
export const FRAME_HEADER_BYTES = 12;
/** Both the compressed and the raw size of a frame must lie in 1..8 MiB, for reading and writing. */
export const FRAME_BUDGET_BYTES = 8 * 1024 * 1024;

/** One decoded record and where its frame starts in the log. */
export interface Frame {
  /** Byte offset of the frame's header in the log. */
  offset: number;
  /** Header plus compressed body. */
  frameBytes: number;
  /**
   * The record's exact JSON bytes: what the batch digest covers (docs/format.md §5.1). Read with
   * `transientRaw`, good only until the next frame is taken.
   */
  raw: Buffer;
}

const MAGIC_WORD = FRAME_MAGIC.readUInt32BE(0);

/** The 12-byte header of a frame as written: the magic, then both sizes, big-endian (docs/format.md §3.1). */
export interface FrameHeader {
  compressedBytes: number;
  rawBytes: number;
  /** Header plus compressed body. */
  frameBytes: number;
  /** Why no reader takes this header (a wrong magic, a size outside the budget); absent when it is sound. */
  fault?: FrameHeaderFault;
}

export interface FrameHeaderFault {
  message: string;
  expected: string;
  found: string | number;
}

/**
 * The header at `start` of `bytes` (at least 12 bytes from there), with what is wrong with it:
 * the magic is checked first, then the compressed size, then the raw size, each in 1..8 MiB.
 */
export function parseFrameHeader(bytes: Buffer, start = 0): FrameHeader {
  const compressedBytes = bytes.readUInt32BE(start + 4);
  const rawBytes = bytes.readUInt32BE(start + 8);
  const header: FrameHeader = { compressedBytes, rawBytes, frameBytes: FRAME_HEADER_BYTES + compressedBytes };
  if (bytes.readUInt32BE(start) !== MAGIC_WORD) {
    header.fault = {
      message: 'invalid v4 frame magic',
      expected: 'RX4F',
      found: bytes.subarray(start, start + 4).toString('hex'),
    };
  } else if (!withinBudget(compressedBytes)) {
    header.fault = sizeFault('compressed', compressedBytes);
  } else if (!withinBudget(rawBytes)) {
    header.fault = sizeFault('raw', rawBytes);
  }
  return header;
}

const withinBudget = (size: number) => size >= 1 && size <= FRAME_BUDGET_BYTES;

function sizeFault(label: 'compressed' | 'raw', size: number): FrameHeaderFault {
  return { message: `invalid v4 frame ${label} size ${size}`, expected: `1..${FRAME_BUDGET_BYTES}`, found: size };
}

/** Encodes one record as an RX4F frame: header, then exactly one zstd frame. */
export function encodeFrame(raw: Uint8Array): Buffer {
  if (raw.length < 1 || raw.length > FRAME_BUDGET_BYTES) {
    throw new InvalidInputError(`record of ${raw.length} bytes is outside the 1..${FRAME_BUDGET_BYTES} frame budget`, {
      expected: `1..${FRAME_BUDGET_BYTES}`,
      found: raw.length,
    });
  }
  const body = zstd.compress(raw);
  if (body.length > FRAME_BUDGET_BYTES) {
    throw new InvalidInputError(`compressed record of ${body.length} bytes exceeds the frame budget`, {
      expected: `at most ${FRAME_BUDGET_BYTES}`,
      found: body.length,
    });
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
  FRAME_MAGIC.copy(frame, 0);
  frame.writeUInt32BE(body.length, 4);
  frame.writeUInt32BE(raw.length, 8);
  body.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}
