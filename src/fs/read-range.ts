import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * The bytes of a file from `start` up to `end`, fewer where the file ends first: read through an
 * open handle, or from a path opened for this read alone. `into`, when given, is filled instead of
 * a new buffer (it must hold `end - start` bytes), and the result is a view of it.
 */
export async function readRange(file: FileHandle | string, start: number, end: number, into?: Buffer): Promise<Buffer> {
  const length = Math.max(0, end - start);
  const buffer = into ?? Buffer.alloc(length);
  if (length === 0) return buffer.subarray(0, 0);
  if (typeof file !== 'string') {
    const { bytesRead } = await file.read(buffer, 0, length, start);
    return buffer.subarray(0, bytesRead);
  }
  const handle = await open(file, 'r');
  try {
    return await readRange(handle, start, end, buffer);
  } finally {
    await handle.close();
  }
}

/** SHA-256 (lower-case hex) of the bytes `readRange` gives; undefined when there are none. */
export async function sha256OfRange(
  file: FileHandle | string,
  start: number,
  end: number,
  into?: Buffer,
): Promise<string | undefined> {
  const bytes = await readRange(file, start, end, into);
  return bytes.length === 0 ? undefined : createHash('sha256').update(bytes).digest('hex');
}
