/**
 * Where the zstd frame that starts `frame` ends, found from its header and block headers alone
 * (RFC 8878 §3.1.1), or undefined when the bytes stop before its last block and checksum.
 *
 * A streaming decoder given a frame cut after its last content block returns every byte of the
 * content without an error on some Node versions (22), the unchecked checksum included: this walk
 * is what tells a cut frame, or bytes after one, from a whole frame there.
 */
export function zstdFrameEnd(frame: Uint8Array): number | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a frame of 6 bytes or fewer has no room for a block header after its own: the walk finds it cut either way
  if (frame.length < 6) return undefined;
  const descriptor = frame[4]!;
  const singleSegment = (descriptor & 0x20) !== 0;
  const contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03]!;
  let at = 5 + (singleSegment ? 0 : 1) + dictionaryIdBytes + contentSizeBytes;
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
  return at > frame.length ? undefined : at;
}

/**
 * Where the skippable frames from `at` on end (RFC 8878 §3.1.2: a magic of 0x184D2A50 to 0x184D2A5F, a
 * 4-byte size, that many bytes), or `at` itself when none starts there. A decoder passes over them, and so
 * does Reasonix 1.38.11: a record's zstd frame followed by one opens (measured); zstd-napi takes them too.
 */
export function skippableFramesEnd(frame: Uint8Array, at: number): number {
  // Nearly every frame ends where its zstd frame does: nothing to look at.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: speed only: the loop below finds nothing at the end either
  if (at >= frame.length) return at;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  while (at + 8 <= frame.length && (view.getUint32(at, true) & 0xfffffff0) === 0x184d2a50) {
    const end = at + 8 + view.getUint32(at + 4, true);
    if (end > frame.length) break;
    at = end;
  }
  return at;
}

/**
 * The content size the zstd frame that starts `frame` declares in its header (RFC 8878 §3.1.1.1.4), or
 * undefined when it declares none or the bytes are no zstd frame. Go's klauspost encoder declares it for
 * every value it compresses whole (Reasonix's recovery checkpoint, docs/format.md §9.10).
 */
export function zstdContentSize(frame: Uint8Array): number | undefined {
  if (frame.length < 6 || frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd)
    return undefined;
  const descriptor = frame[4]!;
  const singleSegment = (descriptor & 0x20) !== 0;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 0x03]!;
  if (sizeBytes === 0 || at + sizeBytes > frame.length) return undefined;
  const view = Buffer.from(frame.buffer, frame.byteOffset + at, sizeBytes);
  if (sizeBytes === 1) return view.readUInt8(0);
  // A two-byte size counts from 256 (the format's own offset).
  if (sizeBytes === 2) return view.readUInt16LE(0) + 256;
  if (sizeBytes === 4) return view.readUInt32LE(0);
  const size = view.readBigUInt64LE(0);
  return size > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(size);
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
    const frame = body.subarray(at);
    if (frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd) break;
    const descriptor = frame[4]!;
    let window: number;
    if ((descriptor & 0x20) !== 0) window = zstdContentSize(frame) ?? 0;
    else {
      const exponent = frame[5]! >> 3;
      const base = 2 ** (10 + exponent);
      window = base + (base / 8) * (frame[5]! & 0x07);
    }
    largest = Math.max(largest, window);
    const end = zstdFrameEnd(frame);
    if (end === undefined) break;
    at += end;
  }
  return largest;
}
