import * as zlib from 'node:zlib';
import { WRITE_LEVEL, WRITE_WINDOW_LOG, type ZstdBackend } from './zstd-backend.js';
import { framesEnd, skippableFramesEnd, zstdFrameEnd } from './zstd-frame-end.js';
import { ZstdSizeMismatch } from '../../errors/index.js';

/** The zstd API `node:zlib` has from Node 22.15 / 23.8 on; absent on Node 20. */
interface ZlibZstd {
  zstdCompressSync(raw: Uint8Array, options: { params: Record<number, number> }): Buffer;
  zstdDecompressSync(frame: Uint8Array, options: { maxOutputLength: number }): Buffer;
  ZstdDecompress: new () => ZstdEngine;
  ZstdCompress: new (options: { params: Record<number, number> }) => ZstdEngine;
  constants: Record<string, number>;
}

/**
 * What a `zlib.ZstdDecompress` or `ZstdCompress` object holds underneath the stream: the native context, the
 * two counters it reports into (output left, input left), and its finishing flush flag.
 * Node's own one-shot functions drive exactly these; they are not public API, so each is
 * checked before use and a Node without them gets the public functions instead.
 */
interface ZstdEngine {
  _handle?: {
    writeSync(
      flush: number,
      input: Uint8Array,
      inOffset: number,
      inLength: number,
      out: Uint8Array,
      outOffset: number,
      outLength: number,
    ): void;
    reset(): void;
    close(): void;
    onerror: (message: string, errno: number, code?: string) => void;
  };
  _writeState?: Uint32Array;
  _finishFlushFlag?: number;
}

export interface ZlibZstdOptions {
  /**
   * Decode every frame with one reused zstd context, straight into the caller's buffer, and encode
   * with one reused context as well (the default). The one-shot functions build a stream and a
   * context for each frame: about ten times slower on one small frame per record, and a fresh
   * output buffer each time.
   */
  reuseContext?: boolean;
  /**
   * The module zstd is taken from: `node:zlib` unless given. The reused contexts lean on parts of it
   * that are not public API; a test gives a module without them to see the backend fall back.
   */
  zlib?: object;
}

/** zstd from `node:zlib`, when the running Node has it; otherwise undefined. */
export function createZlibZstdBackend(options: ZlibZstdOptions = {}): ZstdBackend | undefined {
  const z = (options.zlib ?? zlib) as Partial<ZlibZstd>;
  if (typeof z.zstdCompressSync !== 'function' || typeof z.zstdDecompressSync !== 'function') return undefined;
  const { zstdCompressSync, zstdDecompressSync } = z as ZlibZstd;
  const c = z.constants!;
  const params: Record<number, number> = {
    [c.ZSTD_c_compressionLevel!]: WRITE_LEVEL,
    [c.ZSTD_c_windowLog!]: WRITE_WINDOW_LOG,
    [c.ZSTD_c_checksumFlag!]: 1,
    [c.ZSTD_c_contentSizeFlag!]: 1,
  };
  const decodeInto = options.reuseContext === false ? undefined : reusedDecoder(z as ZlibZstd);
  const encode =
    (options.reuseContext === false ? undefined : reusedEncoder(z as ZlibZstd, params)) ??
    ((raw: Uint8Array) => zstdCompressSync(raw, { params }));
  return {
    name: 'node:zlib',
    compress: encode,
    decompress(body, rawSize, into) {
      const end = framesEnd(body);
      if (end === undefined) throw new Error('unexpected end of zstd frame');
      // One spare byte: content longer than rawSize fills it instead of being cut off unseen. The one-shot
      // function writes a buffer of its own, copied out, so `into` is of no use to it.
      const out = into && decodeInto ? into.subarray(0, rawSize + 1) : Buffer.allocUnsafe(rawSize + 1);
      const written = decodeInto ? decodeInto(body, out, rawSize, end) : decodeFrameByFrame(body, end, out);
      // Bytes that start no whole frame, of which the decoder said nothing (a skippable frame cut short).
      if (end < body.length) throw new Error(`${body.length - end} bytes after the end of the zstd frame`);
      // Stryker disable next-line EqualityOperator: inside the branch where written !== rawSize: never equal there
      if (written !== rawSize) throw new ZstdSizeMismatch(written > rawSize ? 'more' : written, rawSize);
      return out.subarray(0, rawSize);
    },
  };

  /**
   * The frames of `body` up to `end` decoded one by one with the one-shot function into `out` (Node 22's
   * decodes nothing after a skippable frame that comes first); how many bytes they hold, `out.length` at most.
   */
  function decodeFrameByFrame(body: Uint8Array, end: number, out: Buffer): number {
    let written = 0;
    for (let at = skippableFramesEnd(body, 0); at < end && written < out.length; at = skippableFramesEnd(body, at)) {
      const frameEnd = at + zstdFrameEnd(body, at)!;
      try {
        written += zstdDecompressSync(body.subarray(at, frameEnd), {
          maxOutputLength: out.length - written,
        }).copy(out, written);
      } catch (error) {
        if (error instanceof RangeError) return out.length;
        throw error;
      }
      at = frameEnd;
    }
    // zstd's own word on what starts no frame, as zstd-napi and a reused context give it.
    if (end < body.length) zstdDecompressSync(body.subarray(end), { maxOutputLength: out.length });
    return written;
  }
}

/**
 * A decoder that writes the frames of a record body into `out` and says how many bytes it wrote,
 * reusing one zstd context; undefined when this Node's zlib does not have the pieces it needs.
 * `framesEnd` is where the body's whole frames end (`framesEnd()`).
 */
function reusedDecoder(
  z: ZlibZstd,
): ((body: Uint8Array, out: Buffer, rawSize: number, framesEnd: number) => number) | undefined {
  if (typeof z.ZstdDecompress !== 'function' || !usable(new z.ZstdDecompress())) return undefined;
  let engine: ZstdEngine | undefined;
  let failure: string | undefined;
  const context = () => {
    if (!engine) {
      engine = new z.ZstdDecompress();
      engine._handle!.onerror = (message) => {
        failure = message;
      };
    }
    return engine;
  };
  const discard = () => {
    engine?._handle!.close();
    engine = undefined;
  };
  return (body, out, rawSize, framesEnd) => {
    let taken = 0;
    let written = 0;
    // A context that decoded a frame before may answer wrong for one it cannot decode: Node 24 takes no byte
    // of it and says nothing, Node 22 repeats the error on every later call (even after a reset) and, after a
    // frame cut short, calls the next whole one too large. A call that fails or gets nowhere there is made
    // again on a new context, whose answer is the frame's own.
    let fresh = engine === undefined;
    // One call decodes up to the end of a frame (Node 22) or of them all (Node 24).
    while (taken < body.length && written < out.length) {
      const { _handle: handle, _writeState: state } = context();
      failure = undefined;
      handle!.writeSync(
        engine!._finishFlushFlag!,
        body,
        taken,
        body.length - taken,
        out,
        written,
        out.length - written,
      );
      const moved =
        failure === undefined && (body.length - state![1]! !== taken || out.length - state![0]! !== written);
      if (!moved) {
        discard();
        if (fresh) throw new Error(failure ?? 'zstd decoded none of the frame');
        fresh = true;
        continue;
      }
      taken = body.length - state![1]!;
      written = out.length - state![0]!;
      fresh = false;
    }
    // Whole, the context is ready for the next frame (no reset: on Node 22 it frees the window, costing more
    // than the decode); stopped inside a frame, it is not.
    if (taken !== body.length || written !== rawSize || framesEnd !== body.length) discard();
    return written;
  };
}

const usable = (engine: ZstdEngine) =>
  typeof engine._handle?.writeSync === 'function' &&
  typeof engine._handle.reset === 'function' &&
  typeof engine._handle.close === 'function' &&
  engine._writeState instanceof Uint32Array &&
  typeof engine._finishFlushFlag === 'number';

/** zstd's ZSTD_COMPRESSBOUND: an output this large takes any input's frame in one call. */
// Stryker disable next-line EqualityOperator,ArithmeticOperator: a larger output buffer for the encoder (at 128 KiB exactly both give the same bound): memory only
const compressBound = (size: number) => size + (size >>> 8) + (size < 128 << 10 ? ((128 << 10) - size) >>> 11 : 0);

/**
 * The largest output buffer an encoder keeps from one frame to the next: a record's frame is a few KiB,
 * and a larger one gets a buffer of its own, so that a process that once wrote a large record (64 MiB of
 * output) does not hold its size for the rest of its life.
 */
const KEPT_SCRATCH_BYTES = 1 << 20;

/**
 * An encoder reusing one zstd context, or undefined where this Node cannot: without the pieces,
 * or where its frames would differ from the one-shot function's (two probe frames show it).
 */
function reusedEncoder(z: ZlibZstd, params: Record<number, number>): ((raw: Uint8Array) => Buffer) | undefined {
  // Stryker disable next-line ObjectLiteral: the parameters of the context made only to see whether it has the parts needed
  if (typeof z.ZstdCompress !== 'function' || !usable(new z.ZstdCompress({ params }))) return undefined;
  let engine: ZstdEngine | undefined;
  let failure: string | undefined;
  let scratch = Buffer.alloc(0);
  const encode = (raw: Uint8Array): Buffer => {
    if (!engine) {
      engine = new z.ZstdCompress({ params });
      engine._handle!.onerror = (message) => {
        failure = message;
      };
    }
    const bound = compressBound(raw.length);
    let out = scratch;
    if (out.length < bound) {
      out = Buffer.allocUnsafe(bound);
      if (bound <= KEPT_SCRATCH_BYTES) scratch = out;
    }
    failure = undefined;
    engine._handle!.writeSync(engine._finishFlushFlag!, raw, 0, raw.length, out, 0, bound);
    const [outLeft, inLeft] = engine._writeState!;
    // Stryker disable next-line ConditionalExpression: the output is sized to zstd's bound for the input, so it is never full
    if (failure !== undefined || outLeft === 0 || inLeft !== 0) {
      engine = undefined;
      throw new Error(failure ?? 'zstd did not finish the frame in one call');
    }
    // A finished frame leaves the context ready for the next, parameters kept (a reset on Node 22 drops them).
    return Buffer.from(out.subarray(0, bound - outLeft!));
  };
  // Stryker disable next-line StringLiteral: the probe's text: any text shows whether the reused context writes the public function's frame
  const probe = Buffer.from('{"recordType":"batch/begin"}');
  const expected = z.zstdCompressSync(probe, { params });
  // Stryker disable next-line LogicalOperator: needs a context whose first and second frames of the same text differ from each other
  return encode(probe).equals(expected) && encode(probe).equals(expected) ? encode : undefined;
}
