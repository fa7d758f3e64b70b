import type { FileHandle } from 'node:fs/promises';
import { openRegularFile } from '../../fs/open-regular-file.js';
import { BatchChangedError, onFileSystem } from '../../errors/index.js';
import { FRAME_HEADER_BYTES, parseFrameHeader } from '../frame.js';
import { verifiedBegin } from './recall-operation.js';

/** Bytes read from the log at a time: a batch's event frames are passed over by their headers alone. */
const WINDOW_BYTES = 1024 * 1024;

/**
 * The hash of the first batch of the log at `path`, before offset `end`, that used `operationId`; undefined
 * when none did. For a batch after a cursor whose operation id the cursor cannot tell new: the batches before
 * the cursor were verified when it was made, so only their `batch/begin` records are decoded, each batch's
 * other frames passed over by their headers: 4.5 s for a log of 1 GiB in 390,000 batches, where reading its
 * batches took 11.4 s. A log that is no longer as it was verified there (a frame that is not where its batch
 * says) is `BatchChangedError`.
 */
export async function operationHashBefore(path: string, end: number, operationId: string): Promise<string | undefined> {
  const { handle } = await openRegularFile(path, () => new BatchChangedError(path, 0));
  try {
    const log = new LogWindow(handle, path);
    for (let at = 0; at < end; ) {
      const frame = await log.frameAt(at);
      const begin = verifiedBegin(frame, path, at);
      if (begin.operationId === operationId) return begin.operationHash;
      at += frame.length;
      // Its events, then its end: all before `end`, where the cursor's batch ended.
      for (let frame = 0; frame <= begin.eventCount; frame += 1) {
        if (at >= end) throw new BatchChangedError(path, at);
        at += await log.frameBytesAt(at);
      }
      if (at > end) throw new BatchChangedError(path, at);
    }
    return undefined;
    // Stryker disable next-line BlockStatement: a finally that closes a file
  } finally {
    await handle.close();
  }
}

/** The log read forward a window at a time. */
class LogWindow {
  private bytes = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly path: string,
  ) {}

  /** The size of the frame at `offset`, from its header. */
  async frameBytesAt(offset: number): Promise<number> {
    const { frameBytes, fault } = parseFrameHeader(await this.bytesAt(offset, FRAME_HEADER_BYTES));
    if (fault) throw new BatchChangedError(this.path, offset);
    return frameBytes;
  }

  /** The whole frame at `offset`, its header first. */
  async frameAt(offset: number): Promise<Buffer> {
    return this.bytesAt(offset, await this.frameBytesAt(offset));
  }

  private async bytesAt(offset: number, length: number): Promise<Buffer> {
    if (offset < this.start || offset + length > this.start + this.bytes.length) {
      const window = Buffer.allocUnsafe(Math.max(length, WINDOW_BYTES));
      const { bytesRead } = await onFileSystem(this.handle.read(window, 0, window.length, offset), this.path);
      if (bytesRead < length) throw new BatchChangedError(this.path, offset);
      [this.bytes, this.start] = [window.subarray(0, bytesRead), offset];
    }
    return this.bytes.subarray(offset - this.start, offset - this.start + length);
  }
}
