import { fstatSync, readSync } from 'node:fs';
import { LogCutWhileReadError, RefusedAsDamagedError } from '../errors/index.js';
import { turnEventLoopAfterReading } from '../fs/loop-turns.js';
import { onFileSystemSync, openRegularFileSync } from '../fs/open-regular-file.js';
import { FrameParser, type FrameParserOptions, type IncompleteFrame } from './frame-parser.js';
import type { Frame } from './frame.js';

/**
 * A source of log bytes: any async iterable of chunks (a Node stream, a web ReadableStream, a
 * generator). A source may refill one buffer, so a chunk is only good until the next is asked
 * for; `readFrames` keeps nothing of it.
 */
export type ByteSource = AsyncIterable<Uint8Array>;

export type FrameItem = { type: 'frame'; frame: Frame } | { type: 'incomplete'; tail: IncompleteFrame };

export interface ReadFramesOptions extends FrameParserOptions {
  /** Named in errors. */
  file?: string;
  /** Log offset of the source's first byte (when reading from the middle of a log). */
  startOffset?: number;
}

/**
 * Streams the frames of a log. The last item is `incomplete` when the input ends inside a frame
 * (a torn tail); invalid bytes throw a `DamagedStoreError` naming the file and offset.
 */
export async function* readFrames(source: ByteSource, options: ReadFramesOptions = {}): AsyncGenerator<FrameItem> {
  const parser = new FrameParser(options.file, options.startOffset ?? 0, options);
  for await (const chunk of source) {
    for (const frame of parser.push(chunk)) yield { type: 'frame', frame };
  }
  const tail = parser.finish();
  if (tail) yield { type: 'incomplete', tail };
}

/** Chunks large enough that per-chunk costs vanish, small enough to keep memory flat. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of a log file from `offset` on, as a `ByteSource` that refills one buffer: reading a
 * log allocates nothing per chunk, which keeps both the garbage collector's work and the peak
 * memory of a long read flat. (Reading the next chunk ahead into a second buffer was measured:
 * no faster, the page cache answers at once.) A system error is a `FileSystemError` naming `path`:
 * a read of a directory fails with an error that names no file.
 */
export async function* openLogBytes(path: string, offset = 0): ByteSource {
  // Read synchronously: a log is most often read whole at once, and a listing of thousands of small
  // logs waited longer on the thread pool's round trips than it spent reading them.
  const file = openRegularFileSync(
    path,
    () => new RefusedAsDamagedError('RX_LOG_MISSING', 'events.frames is not a regular file', { file: path }),
  );
  const { fd, stats } = file;
  try {
    // Most logs are far smaller than a chunk: a listing of thousands of them must not allocate a
    // whole chunk for each (a log that grows meanwhile is still read to its end, in these steps).
    const { size } = stats;
    // Stryker disable next-line MethodExpression,ArithmeticOperator: a larger read buffer: memory only
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(READ_CHUNK_BYTES, size - offset)));
    for (let position = offset; ; ) {
      const bytesRead = onFileSystemSync(() => readSync(fd, buffer, 0, buffer.length, position), path);
      if (bytesRead === 0) {
        // Cut shorter than what was read of it (a repair, a copy put back): what was read is not the log now.
        const { size: now } = onFileSystemSync(() => fstatSync(fd), path);
        if (now < position)
          throw new LogCutWhileReadError(`the log was cut to ${now} bytes while it was read, past ${position}`, {
            file: path,
            offset: now,
          });
        return;
      }
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
      await turnEventLoopAfterReading(bytesRead);
    }
    // Stryker disable next-line BlockStatement: a finally that closes a file
  } finally {
    file.close();
  }
}
