import type { PayloadRef } from './records.js';

/** One event of a committed batch, as stored. */
export interface StoredEvent {
  id: string;
  seq: number;
  kind: string;
  optional: boolean;
  required: boolean;
  /** The payload's JSON bytes when stored inline (decoded from base64); absent when empty or by ref. */
  payload?: Buffer;
  /** Where the payload lives when it was too large to inline (docs/format.md §5.5). */
  payloadRef?: PayloadRef;
  /** Byte offset of the event's frame in the log. */
  offset: number;
}

/** A batch whose `batch/end` validated: the unit Reasonix commits and replays (docs/format.md §5). */
export interface CommittedBatch {
  commitId: string;
  operationId: string;
  operationHash: string;
  firstSeq: number;
  eventCount: number;
  turnId?: string;
  writerGeneration: number;
  /** The commit time as stored (RFC 3339, UTC). */
  createdAt: string;
  sha256: string;
  events: StoredEvent[];
  /** Byte offset of the `batch/begin` frame. */
  offset: number;
  /** Byte offset just past the `batch/end` frame: the log's durable end after this batch. */
  end: number;
}

/** Bytes past the last committed batch: a write in progress or a torn write, invisible to readers (docs/format.md §3.4). */
export interface TornTail {
  offset: number;
  bytes: number;
  reason: 'short header' | 'short frame' | 'unfinished batch';
}
