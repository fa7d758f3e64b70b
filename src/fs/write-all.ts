import type { FileHandle } from 'node:fs/promises';
import { fileSystemErrorOf, ShortWriteError } from '../errors/index.js';
import { writePoint } from './fail-point.js';

/**
 * Writes every byte of `data` at the handle's position, or throws a coded error naming `path`.
 * A file handle's write may write less than it is asked to (a nearly full disk writes what fits and
 * says so), so it is called again for the rest; the next call then fails with the system's error
 * (ENOSPC), or writes nothing, which is a `ShortWriteError`. `point` names the write for the
 * crash tests (src/fs/fail-point.ts). Returns the bytes written: all of them.
 */
export async function writeAll(
  handle: FileHandle,
  data: Uint8Array | string,
  path: string,
  point: string,
): Promise<number> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let done = 0;
  while (done < bytes.length) {
    const fault = writePoint(point);
    let written: number;
    try {
      if (fault === 'enospc') throw noSpaceLeft();
      const rest = bytes.length - done;
      ({ bytesWritten: written } = await handle.write(bytes, done, fault === 'short' ? Math.ceil(rest / 2) : rest));
    } catch (error) {
      throw fileSystemErrorOf(error, path);
    }
    if (written === 0) {
      throw new ShortWriteError(`${path}: wrote ${done} of ${bytes.length} bytes, and the system wrote no more`, {
        file: path,
        expected: bytes.length,
        found: done,
      });
    }
    done += written;
  }
  return bytes.length;
}

/** Pieces are gathered to about this many bytes before a write: a document arrives in many small pieces. */
const GATHER_BYTES = 256 * 1024;

/**
 * Writes text given a piece at a time through `write`, gathered to about 256 KiB a write (never
 * more than one write's worth held). Returns the bytes written.
 */
export async function writePieces(
  pieces: AsyncIterable<string>,
  write: (bytes: Buffer) => Promise<void>,
): Promise<number> {
  let written = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    const bytes = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingLength = 0;
    await write(bytes);
    written += bytes.length;
  };
  for await (const piece of pieces) {
    pending.push(piece);
    pendingLength += piece.length;
    if (pendingLength >= GATHER_BYTES) await flush();
  }
  await flush();
  return written;
}

/**
 * Checks that the file behind `handle` holds `expected` bytes: what is published is what was
 * written, whatever happened to the file meanwhile.
 */
export async function expectSize(handle: FileHandle, expected: number, path: string): Promise<void> {
  const { size } = await handle.stat().catch((error: unknown) => {
    throw fileSystemErrorOf(error, path);
  });
  if (size !== expected)
    throw new ShortWriteError(`${path}: ${size} bytes on disk where ${expected} were written; not published`, {
      file: path,
      expected,
      found: size,
    });
}

/** ENOSPC as the system gives it, for the fault a test arms. */
export function noSpaceLeft(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}
