import { writeThroughTemp, type WriteOptions } from './atomic-write.js';
import { failPoint } from './fail-point.js';

/** Writes are gathered to about this many bytes: a page arrives in many small pieces. */
const WRITE_BYTES = 256 * 1024;

/**
 * Writes `path` from a stream of pieces so that a reader sees either the old file or the whole
 * new one: pieces go to a temp file beside it (never more than one write's worth held), which is
 * fsynced and renamed over the target. If the stream fails, the temp file is removed and the
 * target is left as it was. Returns the bytes written.
 */
export async function writeStreamAtomic(
  path: string,
  pieces: AsyncIterable<string>,
  options: WriteOptions = {},
): Promise<number> {
  return writeThroughTemp(
    path,
    async (write) => {
      let written = 0;
      let pending: string[] = [];
      let pendingLength = 0;
      const flush = async () => {
        const bytes = Buffer.from(pending.join(''), 'utf8');
        pending = [];
        pendingLength = 0;
        await write(bytes);
        failPoint('stream.piece-written');
        written += bytes.length;
      };
      for await (const piece of pieces) {
        pending.push(piece);
        pendingLength += piece.length;
        if (pendingLength >= WRITE_BYTES) await flush();
      }
      await flush();
      return written;
    },
    { point: 'write.stream', ...options },
  );
}
