import { writeThroughTemp, type WriteOptions } from './atomic-write.js';
import { failPoint } from './fail-point.js';
import { writePieces } from './write-all.js';

/**
 * Writes `path` from a stream of pieces so that a reader sees either the old file or the whole
 * new one: pieces go to a temp file beside it (gathered by `writePieces`), which is fsynced and
 * renamed over the target. If the stream fails, the temp file is removed and the target is left as
 * it was. Returns the bytes written.
 */
export async function writeStreamAtomic(
  path: string,
  pieces: AsyncIterable<string>,
  options: WriteOptions = {},
): Promise<number> {
  return writeThroughTemp(
    path,
    (write) =>
      writePieces(pieces, async (bytes) => {
        await write(bytes);
        failPoint('stream.piece-written');
      }),
    { point: 'write.stream', ...options },
  );
}
