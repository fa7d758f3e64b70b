import { createReadStream } from 'node:fs';
import { FrameParser, type IncompleteFrame } from './frame-parser.js';
import type { Frame } from './frame.js';

/** A source of log bytes: any async iterable of chunks (a Node stream, a web ReadableStream, a generator). */
export type ByteSource = AsyncIterable<Uint8Array>;

export type FrameItem = { type: 'frame'; frame: Frame } | { type: 'incomplete'; tail: IncompleteFrame };

export interface ReadFramesOptions {
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
  const parser = new FrameParser(options.file, options.startOffset ?? 0);
  for await (const chunk of source) {
    for (const frame of parser.push(chunk)) yield { type: 'frame', frame };
  }
  const tail = parser.finish();
  if (tail) yield { type: 'incomplete', tail };
}

/** Chunks large enough that per-chunk costs vanish, small enough to keep memory flat. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** The bytes of a log file from `offset` on, as a `ByteSource`. */
export function openLogBytes(path: string, offset = 0): ByteSource {
  return createReadStream(path, { start: offset, highWaterMark: READ_CHUNK_BYTES });
}
