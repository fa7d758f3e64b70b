import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, open, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { encodeBatch, type EventToWrite } from '../../../src/codec/encode-batch.js';
import { encodeFrame } from '../../../src/codec/frame.js';
import { FrameParser } from '../../../src/codec/frame-parser.js';
import { tempDir } from '../temp-dir.js';

/** One frame of a log as the fault builders see it. */
export interface LoggedFrame {
  offset: number;
  bytes: number;
  record: { recordType: string; [key: string]: unknown };
  raw: Buffer;
}

/** Copies a session and its store's `.content-v1` into a fresh store; returns the copy's directory. */
export async function copySession(sessionDir: string): Promise<string> {
  const store = join(await tempDir('rxstore-fault-'), 'sessions-v4');
  const copy = join(store, basename(sessionDir));
  await mkdir(store, { recursive: true });
  await cp(sessionDir, copy, { recursive: true });
  await cp(join(dirname(sessionDir), '.content-v1'), join(store, '.content-v1'), { recursive: true }).catch(
    () => undefined,
  );
  return copy;
}

export const logOf = (sessionDir: string) => join(sessionDir, 'events.frames');

export async function framesOf(sessionDir: string): Promise<LoggedFrame[]> {
  const parser = new FrameParser(undefined);
  return [...parser.push(await readFile(logOf(sessionDir)))].map((frame) => ({
    offset: frame.offset,
    bytes: frame.frameBytes,
    raw: frame.raw,
    record: JSON.parse(frame.raw.toString('utf8')) as LoggedFrame['record'],
  }));
}

/** The `batch/end` frames, in order. */
export async function endFrames(sessionDir: string): Promise<LoggedFrame[]> {
  return (await framesOf(sessionDir)).filter((frame) => frame.record.recordType === 'batch/end');
}

export async function editLog(sessionDir: string, edit: (log: Buffer) => Buffer): Promise<void> {
  await writeFile(logOf(sessionDir), edit(await readFile(logOf(sessionDir))));
}

/** Replaces the bytes of one frame with other bytes (or with nothing). */
export async function replaceFrame(sessionDir: string, frame: LoggedFrame, replacement: Buffer): Promise<void> {
  await editLog(sessionDir, (log) =>
    Buffer.concat([log.subarray(0, frame.offset), replacement, log.subarray(frame.offset + frame.bytes)]),
  );
}

/** Re-encodes a frame's record with some fields changed: a well-formed frame that says something else. */
export async function rewriteRecord(
  sessionDir: string,
  frame: LoggedFrame,
  change: Record<string, unknown>,
): Promise<void> {
  await replaceFrame(sessionDir, frame, encodeFrame(Buffer.from(JSON.stringify({ ...frame.record, ...change }))));
}

/** Inserts one well-formed frame holding `record` at a frame boundary. */
export async function insertFrame(sessionDir: string, offset: number, record: Record<string, unknown>): Promise<void> {
  await insertRawFrame(sessionDir, offset, Buffer.from(JSON.stringify(record)));
}

/** Inserts one well-formed frame holding any bytes (not necessarily a record) at a frame boundary. */
export async function insertRawFrame(sessionDir: string, offset: number, raw: Buffer): Promise<void> {
  const frame = encodeFrame(raw);
  await editLog(sessionDir, (log) => Buffer.concat([log.subarray(0, offset), frame, log.subarray(offset)]));
}

export async function cutLog(sessionDir: string, bytes: number): Promise<void> {
  const frames = await framesOf(sessionDir);
  const last = frames.at(-1)!;
  await truncate(logOf(sessionDir), last.offset + last.bytes - bytes);
}

/** Appends one well-formed batch after the last one, starting at `firstSeq` (default: the next sequence). */
export async function appendBatch(
  sessionDir: string,
  events: EventToWrite[],
  options: { skipSequences?: number; operationId?: string; turnId?: string } = {},
): Promise<void> {
  const ends = await endFrames(sessionDir);
  const last = ends.at(-1)!.record as unknown as { firstSeq: number; eventCount: number };
  const log = await readFile(logOf(sessionDir));
  const encoded = await encodeBatch(
    {
      operationId: options.operationId ?? `rxstore-fault:${log.length}`,
      ...(options.turnId !== undefined ? { turnId: options.turnId } : {}),
      events,
    },
    {
      sessionId: basename(sessionDir),
      writerGeneration: 1,
      firstSeq: last.firstSeq + last.eventCount + (options.skipSequences ?? 0),
      offset: log.length,
    },
  );
  // Appended, as Reasonix appends: a reader meanwhile never sees the log shorter than it was.
  await appendFile(logOf(sessionDir), encoded.bytes);
}

export async function removePath(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/**
 * Rewrites the text of every record with `edit` and signs each batch again (its end's sha256 over the
 * new bytes): a log Reasonix verifies, saying what the edit made it say.
 */
export async function rewriteEveryRecord(sessionDir: string, edit: (text: string) => string): Promise<void> {
  const out: Buffer[] = [];
  let digest = createHash('sha256');
  for (const frame of await framesOf(sessionDir)) {
    let text = edit(frame.raw.toString('utf8'));
    if (frame.record.recordType === 'batch/end') {
      text = text.replace(/"sha256":"[0-9a-f]*"/, `"sha256":"${digest.digest('hex')}"`);
      digest = createHash('sha256');
    } else digest.update(text).update(Buffer.from([0]));
    out.push(encodeFrame(Buffer.from(text)));
  }
  await writeFile(logOf(sessionDir), Buffer.concat(out));
}

/** An RX4F frame of a record of `rawLength` bytes whose body is `zstd`, as given (zstd frames or any bytes). */
export function rx4fFrame(rawLength: number, zstd: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header.write('RX4F', 0, 'ascii');
  header.writeUInt32BE(zstd.length, 4);
  header.writeUInt32BE(rawLength, 8);
  return Buffer.concat([header, zstd]);
}

/** A zstd frame holding `raw` in one stored (uncompressed) block, its bytes readable as they are. */
export function storedZstdFrame(raw: Buffer): Buffer {
  const zstd = Buffer.alloc(4 + 1 + 4 + 3);
  zstd.writeUInt32LE(0xfd2fb528, 0); // zstd's magic
  zstd[4] = 0xa0; // single segment, a 4-byte content size, no checksum
  zstd.writeUInt32LE(raw.length, 5);
  zstd.writeUIntLE((raw.length << 3) | 1, 9, 3); // the last block, raw, of raw.length bytes
  return Buffer.concat([zstd, raw]);
}

/**
 * An RX4F frame holding `raw` in one stored (uncompressed) zstd block (`storedZstdFrame`);
 * `trailer` follows it (a skippable frame, bytes a decoder passes over, or anything else).
 */
export function storedFrame(raw: Buffer, trailer: Buffer = Buffer.alloc(0)): Buffer {
  return rx4fFrame(raw.length, Buffer.concat([storedZstdFrame(raw), trailer]));
}

/**
 * An RX4F frame of `raw` in one zstd frame of one raw block that declares a window (RFC 8878 §3.1.1.1.2) by its
 * descriptor byte, with no content size: `0x68` is 8 MiB, `0x69` 8 MiB and an eighth, `0x70` 16 MiB.
 */
export function windowedFrame(raw: Buffer, windowDescriptor: number): Buffer {
  const zstd = Buffer.alloc(4 + 1 + 1 + 3);
  zstd.writeUInt32LE(0xfd2fb528, 0); // zstd's magic
  zstd[4] = 0x00; // not single segment, no content size, no checksum, no dictionary
  zstd[5] = windowDescriptor;
  zstd.writeUIntLE((raw.length << 3) | 1, 6, 3); // the last block, raw, of raw.length bytes
  return rx4fFrame(raw.length, Buffer.concat([zstd, raw]));
}

/**
 * A zstd skippable frame (RFC 8878 §3.1.2) holding `content`: magic 0x184D2A50 + `magicLow` (0 to 15), then
 * the size it claims (`content`'s own unless given: a claim past the bytes there makes it cut short).
 */
export function skippableFrame(content: Uint8Array, { magicLow = 15, claimed = content.length } = {}): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0x184d2a50 + magicLow, 0);
  head.writeUInt32LE(claimed, 4);
  return Buffer.concat([head, content]);
}

/**
 * Flips one byte of the log in place, well before its end (inside a frame a third of the way in,
 * outside the first 64 bytes and the last 4 KiB a cursor's digests cover), the size kept, and moves
 * its modification time a minute on: the log written under a caught-up cursor. Returns the bytes as
 * they were, to put back.
 */
export async function flipInPlace(sessionDir: string): Promise<Buffer> {
  const original = await readFile(logOf(sessionDir));
  const frames = await framesOf(sessionDir);
  const frame = frames[Math.floor(frames.length / 3)]!;
  const at = frame.offset + frame.bytes - 2;
  if (at < 64 || at >= original.length - 4096)
    throw new Error(
      `the log is too short to flip a byte outside what a cursor's digests cover (${original.length} bytes)`,
    );
  const flipped = Buffer.from(original);
  flipped[at]! ^= 0xff;
  await putBack(sessionDir, flipped);
  return original;
}

/**
 * Writes `bytes` over the log in place (the same file), its modification time moved a minute on. The
 * file is never truncated first: a reader polling it meanwhile never sees it shorter than both its old
 * and its new size, as a log rewritten from nothing would be.
 */
export async function putBack(sessionDir: string, bytes: Buffer): Promise<void> {
  const log = logOf(sessionDir);
  const { mtimeMs } = await stat(log);
  const file = await open(log, 'r+');
  try {
    await file.write(bytes, 0, bytes.length, 0);
    await file.truncate(bytes.length);
  } finally {
    await file.close();
  }
  await utimes(log, new Date(), new Date(mtimeMs + 60_000));
}
