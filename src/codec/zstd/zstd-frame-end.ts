/**
 * Where the zstd frame that starts at `start` of `frame` ends (its length from there), found from its
 * header and block headers alone (RFC 8878 §3.1.1), or undefined when the bytes stop before its last
 * block and checksum. An offset rather than a subarray: it runs for every record a read decodes.
 *
 * A streaming decoder given a frame cut after its last content block returns every byte of the
 * content without an error on some Node versions (22), the unchecked checksum included: this walk
 * is what tells a cut frame, or bytes after one, from a whole frame there.
 */
export function zstdFrameEnd(frame: Uint8Array, start = 0): number | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a frame of 6 bytes or fewer has no room for a block header after its own: the walk finds it cut either way
  if (frame.length - start < 6) return undefined;
  const descriptor = frame[start + 4]!;
  const singleSegment = (descriptor & 0x20) !== 0;
  const contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03]!;
  let at = start + 5 + (singleSegment ? 0 : 1) + dictionaryIdBytes + contentSizeBytes;
  for (;;) {
    // Stryker disable next-line ConditionalExpression,ArithmeticOperator: a block header past the end reads as zeros, a block that ends past the end: the check after it says cut
    if (at + 3 > frame.length) return undefined;
    const header = frame[at]! | (frame[at + 1]! << 8) | (frame[at + 2]! << 16);
    const last = (header & 1) === 1;
    const type = (header >> 1) & 0x03;
    const size = header >>> 3;
    at += 3 + (type === 1 ? 1 : size); // an RLE block holds one byte, repeated `size` times
    // Stryker disable next-line ConditionalExpression: a block past the end leaves at past it, and the last check says cut
    if (at > frame.length) return undefined;
    if (last) break;
  }
  at += (descriptor & 0x04) !== 0 ? 4 : 0;
  return at > frame.length ? undefined : at - start;
}

/**
 * Where the skippable frames from `at` on end (RFC 8878 §3.1.2: a magic of 0x184D2A50 to 0x184D2A5F, a
 * 4-byte size, that many bytes), or `at` itself when none starts there. A decoder passes over them, and so
 * does Reasonix 1.38.11: a record's zstd frame followed by one opens (measured); zstd-napi takes them too.
 */
export function skippableFramesEnd(frame: Uint8Array, at: number): number {
  while (at + 8 <= frame.length && (readUint32LE(frame, at) & 0xfffffff0) === 0x184d2a50) {
    const end = at + 8 + readUint32LE(frame, at + 4);
    if (end > frame.length) break;
    at = end;
  }
  return at;
}

/**
 * How far the frames of a record body reach: zstd frames and skippable frames, any number of each in any
 * order (RFC 8878 §3.1), as a decoder takes them. Reasonix 1.38.11 opens a record of two zstd frames, or with
 * a skippable frame before its frame (measured), and zstd-napi decodes them. The end of the last whole
 * frame; short of the body's length where something that starts no frame begins; undefined when a zstd
 * frame starts but the bytes stop before its end.
 */
export function framesEnd(body: Uint8Array): number | undefined {
  let at = 0;
  for (;;) {
    at = skippableFramesEnd(body, at);
    if (!startsZstdFrame(body, at)) return at;
    const length = zstdFrameEnd(body, at);
    if (length === undefined) return undefined;
    at += length;
  }
}

/** The unsigned little-endian 32-bit number at `at`, read without a view: this runs for every record. */
function readUint32LE(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/**
 * The content size the zstd frame that starts `frame` declares in its header (RFC 8878 §3.1.1.1.4), or
 * undefined when it declares none or the bytes are no zstd frame. Go's klauspost encoder declares it for
 * every value it compresses whole (Reasonix's recovery checkpoint, docs/format.md §9.10).
 */
export function zstdContentSize(frame: Uint8Array, start = 0): number | undefined {
  if (!startsZstdFrame(frame, start) || frame.length - start < 6) return undefined;
  const descriptor = frame[start + 4]!;
  const singleSegment = (descriptor & 0x20) !== 0;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  const at = start + 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 0x03]!;
  if (sizeBytes === 0 || at + sizeBytes > frame.length) return undefined;
  // Little-endian; a two-byte size counts from 256 (the format's own offset).
  let size = 0;
  for (let byte = sizeBytes - 1; byte >= 0; byte -= 1) size = size * 256 + frame[at + byte]!;
  if (sizeBytes === 2) return size + 256;
  return size > Number.MAX_SAFE_INTEGER ? undefined : size;
}

/** Whether the zstd magic number (0xFD2FB528, little-endian) is at `start`. */
function startsZstdFrame(bytes: Uint8Array, start: number): boolean {
  return bytes[start] === 0x28 && bytes[start + 1] === 0xb5 && bytes[start + 2] === 0x2f && bytes[start + 3] === 0xfd;
}

/** The largest window Reasonix 1.38.11's decoder takes: a frame declaring more is refused (measured). */
export const MAX_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * The largest window any zstd frame of a record body declares (RFC 8878 §3.1.1.1.2: its window descriptor,
 * or, for a single-segment frame, its content size), skippable frames passed over; 0 when it starts no frame.
 * Reasonix decodes with a bounded window and refuses a frame over it (`window size exceeded`), whatever
 * its content needs.
 */
export function largestWindow(body: Uint8Array): number {
  let largest = 0;
  for (let at = skippableFramesEnd(body, 0); at + 6 <= body.length; at = skippableFramesEnd(body, at)) {
    if (!startsZstdFrame(body, at)) break;
    const descriptor = body[at + 4]!;
    let window: number;
    if ((descriptor & 0x20) !== 0) window = zstdContentSize(body, at) ?? 0;
    else {
      const exponent = body[at + 5]! >> 3;
      const base = 2 ** (10 + exponent);
      window = base + (base / 8) * (body[at + 5]! & 0x07);
    }
    largest = Math.max(largest, window);
    const end = zstdFrameEnd(body, at);
    if (end === undefined) break;
    at += end;
  }
  return largest;
}
