import { createHash } from 'node:crypto';
import { randomHexId } from './random-id.js';
import type { CommittedBatch, StoredEvent } from './batch.js';
import type { ContentStore } from './content-store.js';
import { InvalidInputError } from '../errors/index.js';
import { encodeFrame } from './frame.js';
import { goJson, goTime } from './go-json/go-json.js';
import { operationHash } from './operations/operation-hash.js';
import { V4_CODEC, V4_SCHEMA_VERSION, ZERO_TIME, type PayloadRef } from './records.js';

/** Payloads longer than this go to the content store (docs/format.md §5.5). */
export const INLINE_PAYLOAD_LIMIT = 64 * 1024;

/** One event of a batch to write: its kind, its payload, and whether a reader may skip a kind it does not know. */
export interface EventToWrite {
  kind: string;
  /** Any JSON value; serialised as Go would. Omit for an empty payload. */
  payload?: unknown;
  /** The payload's JSON bytes, written as they are (copying events keeps their exact bytes). */
  payloadJson?: Uint8Array;
  optional?: boolean;
  required?: boolean;
  /** Defaults to 32 random lower-case hex digits, as Reasonix mints them. */
  id?: string;
}

/** One batch to commit: its operation id, its turn, and its events in order. */
export interface BatchToWrite {
  /** The idempotency key (docs/format.md §5.3), unique per commit. */
  operationId: string;
  turnId?: string;
  /** Defaults to 32 random lower-case hex digits. */
  commitId?: string;
  /** The commit time; defaults to now. A string is written as given (e.g. with nanoseconds). */
  createdAt?: Date | string;
  events: EventToWrite[];
}

export interface BatchPlacement {
  sessionId: string;
  writerGeneration: number;
  /** The sequence of the batch's first event: the log's last sequence + 1. */
  firstSeq: number;
  /** Log offset the batch will be written at, so the returned batch carries true offsets. */
  offset: number;
  /** Where payloads over 64 KiB are published; required only when one is that large. */
  content?: ContentStore;
}

export interface EncodedBatch {
  /** The frames of begin, events and end, ready to append. */
  bytes: Buffer;
  batch: CommittedBatch;
}

/** An event's payload as the bytes written: its JSON bytes as given, else its value as Go serialises it. */
export function payloadBytesOf(event: EventToWrite): Buffer | undefined {
  if (event.payloadJson) return Buffer.from(event.payloadJson);
  // Stryker disable next-line StringLiteral: Buffer.from(text, '') is UTF-8 too
  return event.payload === undefined ? undefined : Buffer.from(goJson(event.payload), 'utf8');
}

/** The operation hash of a batch to write (docs/format.md §5.3), over its payloads as `payloadBytesOf` gives them. */
export function operationHashOf(
  sessionId: string,
  input: BatchToWrite,
  payloads: readonly (Buffer | undefined)[],
): string {
  return operationHash(
    sessionId,
    input.turnId,
    input.events.map((event, index) => ({ kind: event.kind, optional: event.optional, payload: payloads[index] })),
  );
}

/** A physical record's JSON bytes: the fields every record starts with, then its own (docs/format.md §4). */
function physicalRecord(recordType: string, fields: Record<string, unknown>): Buffer {
  // Stryker disable next-line StringLiteral: Buffer.from(text, '') is UTF-8 too
  return Buffer.from(goJson({ schemaVersion: V4_SCHEMA_VERSION, codec: V4_CODEC, recordType, ...fields }), 'utf8');
}

/**
 * Encodes one batch as Reasonix writes it (docs/format.md §4, §5): records in Reasonix's field order with
 * Go's JSON conventions, zero-time `createdAt` on events and end, the operation hash of §5.3, the
 * digest over the raw record bytes, and large payloads moved to the content store.
 */
export async function encodeBatch(input: BatchToWrite, place: BatchPlacement): Promise<EncodedBatch> {
  if (input.events.length === 0) throw new InvalidInputError('a batch needs at least one event');
  if (place.writerGeneration < 1) throw new InvalidInputError('writerGeneration must be at least 1');
  const commitId = input.commitId ?? randomHexId();
  const createdAt = goTime(input.createdAt ?? new Date());
  const payloads = input.events.map((event) => payloadBytesOf(event));
  const opHash = operationHashOf(place.sessionId, input, payloads);

  // What `batch/begin` says, in its field order; the committed batch carries the same facts.
  const begin = {
    commitId,
    operationId: input.operationId,
    operationHash: opHash,
    firstSeq: place.firstSeq,
    eventCount: input.events.length,
    ...(input.turnId ? { turnId: input.turnId } : {}),
    writerGeneration: place.writerGeneration,
    createdAt,
  };
  const records: Buffer[] = [physicalRecord('batch/begin', begin)];

  const events: StoredEvent[] = [];
  for (const [index, event] of input.events.entries()) {
    const seq = place.firstSeq + index;
    const payload = payloads[index];
    let payloadRef: PayloadRef | undefined;
    if (payload && payload.length > INLINE_PAYLOAD_LIMIT) {
      if (!place.content) throw new InvalidInputError(`payload of ${payload.length} bytes needs a content store`);
      payloadRef = await place.content.write(payload, 'application/json');
    }
    const stored: StoredEvent = {
      id: event.id ?? randomHexId(),
      seq,
      kind: event.kind,
      optional: event.optional ?? false,
      required: event.required ?? false,
      offset: 0,
      ...(payloadRef ? { payloadRef } : payload && payload.length > 0 ? { payload } : {}),
    };
    events.push(stored);
    records.push(
      physicalRecord('batch/event', {
        createdAt: ZERO_TIME,
        event: {
          id: stored.id,
          seq,
          kind: event.kind,
          ...(event.optional ? { optional: true } : {}),
          ...(event.required ? { required: true } : {}),
          ...(payloadRef ? { payloadRef } : stored.payload ? { payload: stored.payload.toString('base64') } : {}),
        },
      }),
    );
  }

  const digest = createHash('sha256');
  for (const record of records) digest.update(record).update(Buffer.from([0]));
  const sha256 = digest.digest('hex');
  records.push(
    physicalRecord('batch/end', {
      commitId,
      firstSeq: place.firstSeq,
      eventCount: input.events.length,
      createdAt: ZERO_TIME,
      sha256,
    }),
  );

  const frames = records.map((record) => encodeFrame(record));
  let offset = place.offset;
  frames.forEach((frame, index) => {
    if (index >= 1 && index <= events.length) events[index - 1]!.offset = offset;
    offset += frame.length;
  });
  return {
    bytes: Buffer.concat(frames),
    batch: {
      ...begin,
      sha256,
      events,
      offset: place.offset,
      end: offset,
    },
  };
}
