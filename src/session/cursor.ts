import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { RxError } from '../codec/errors.js';
import { SESSION_FILES } from './session-files.js';

/**
 * Where an incremental reader stopped: after the last committed batch it saw. It carries the
 * session's identity and digests of the log's first bytes and of the bytes just before the
 * offset, so that a log rewritten under it (a repair cut a tail, another log took its place)
 * is noticed instead of read from the wrong place. Store it as JSON; it is validated on use.
 */
export const CursorSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  offset: z.number().int().nonnegative(),
  nextSequence: z.number().int().positive(),
  writerGeneration: z.number().int().nonnegative(),
  prefixDigest: z.string().nullable(),
  anchorDigest: z.string().nullable(),
});
export type Cursor = z.infer<typeof CursorSchema>;

/** The log under a cursor is not the log the cursor was taken from. */
export class CursorMismatchError extends RxError {
  readonly code: string = 'RX_CURSOR_MISMATCH';
}

/** Bytes hashed on each side: enough to tell logs apart, small enough to cost nothing. */
const PREFIX_BYTES = 64;
const ANCHOR_BYTES = 4096;

async function digestRange(logPath: string, start: number, end: number): Promise<string | null> {
  if (end <= start) return null;
  const handle = await open(logPath, 'r');
  try {
    const bytes = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, start);
    return createHash('sha256').update(bytes.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}

/** A cursor at `offset` (a batch boundary) of a session's log. */
export async function cursorAt(sessionDir: string, sessionId: string, position: { offset: number; nextSequence: number; writerGeneration: number }): Promise<Cursor> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  return {
    version: 1,
    sessionId,
    ...position,
    prefixDigest: await digestRange(logPath, 0, Math.min(PREFIX_BYTES, position.offset)),
    anchorDigest: await digestRange(logPath, Math.max(0, position.offset - ANCHOR_BYTES), position.offset),
  };
}

/** Throws `CursorMismatchError` unless the log still holds, unchanged, what the cursor saw. */
export async function checkCursor(sessionDir: string, sessionId: string, cursor: Cursor): Promise<void> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  const fail = (why: string) => new CursorMismatchError(`the cursor does not fit this log: ${why}; read the session again from the start`, { file: logPath, offset: cursor.offset });
  if (cursor.sessionId !== sessionId) throw fail(`it was taken from session ${JSON.stringify(cursor.sessionId)}`);
  const handle = await open(logPath, 'r');
  const { size } = await handle.stat().finally(() => handle.close());
  if (size < cursor.offset) throw fail(`the log is ${size} bytes, shorter than the cursor's offset (a repair cut it, or it was replaced)`);
  const again = await cursorAt(sessionDir, sessionId, cursor);
  if (again.prefixDigest !== cursor.prefixDigest || again.anchorDigest !== cursor.anchorDigest) throw fail('the bytes before the offset changed (the log was rewritten)');
}
