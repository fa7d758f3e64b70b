import { openRegularFile } from '../../fs/open-regular-file.js';
import { DamagedStoreError, onFileSystem, BatchChangedError } from '../../errors/index.js';
import { FrameParser } from '../frame-parser.js';
import { FRAME_HEADER_BYTES, parseFrameHeader } from '../frame.js';
import type { RecordedOperation } from './recalled-operation-ledger.js';
import { V4RecordSchema } from '../records.js';
import { parseGoJson } from '../go-json/go-text.js';

/**
 * The operation id and hash of the batch whose `batch/begin` frame starts at `offset` of the log at
 * `path`, read back from the file: a batch the reader verified earlier, so anything other than a
 * sound begin record there means the log was rewritten since (a `DamagedStoreError` saying so).
 */
export async function recallOperation(path: string, offset: number): Promise<RecordedOperation> {
  const changed = () => new BatchChangedError(path, offset);
  const { handle: file } = await openRegularFile(path, changed);
  try {
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    if ((await onFileSystem(file.read(header, 0, header.length, offset), path)).bytesRead < header.length)
      throw changed();
    const { frameBytes, fault } = parseFrameHeader(header);
    if (fault) throw changed();
    const frame = Buffer.allocUnsafe(frameBytes);
    if ((await onFileSystem(file.read(frame, 0, frame.length, offset), path)).bytesRead < frame.length) throw changed();
    const { operationId, operationHash } = verifiedBegin(frame, path, offset);
    return { operationId, operationHash };
    // Stryker disable next-line BlockStatement: a finally that closes a file
  } finally {
    await file.close();
  }
}

/**
 * The `batch/begin` record a frame a reader verified earlier holds (`frame`, from its header on, found at
 * `offset` of the log at `path`): its operation and how many events its batch holds. Anything else there
 * means the log was rewritten since (`BatchChangedError`).
 */
export function verifiedBegin(frame: Buffer, path: string, offset: number): RecordedOperation & { eventCount: number } {
  const changed = () => new BatchChangedError(path, offset);
  let record: unknown;
  try {
    const [decoded] = new FrameParser(path, offset).push(frame);
    record = parseGoJson(decoded!.raw);
  } catch (error) {
    // Bytes that no longer decode to a record (damage) or to JSON: not the batch that was verified.
    if (error instanceof DamagedStoreError || error instanceof SyntaxError) throw changed();
    throw error;
  }
  const begin = V4RecordSchema.safeParse(record);
  if (!begin.success || begin.data.recordType !== 'batch/begin') throw changed();
  const { operationId, operationHash, eventCount } = begin.data;
  if (!operationId || !operationHash || !eventCount || eventCount <= 0) throw changed();
  return { operationId, operationHash, eventCount };
}
