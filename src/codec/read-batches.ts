import { createHash, type Hash } from 'node:crypto';
import type { CommittedBatch, StoredEvent, TornTail } from './batch.js';
import { DamagedStoreError, UnsupportedVersionError } from '../errors/index.js';
import { KNOWN_EVENT_KINDS } from './event-kinds.js';
import { OperationLedger } from './operations/operation-ledger.js';
import { conflictingOperation } from './operations/conflicting-operation.js';
import type { FrameItem } from './read-frames.js';
import { RECORD_LITERALS, V4_CODEC, V4_SCHEMA_VERSION, V4RecordSchema, type V4Record } from './records.js';
import { goText, parseGoJsonText } from './go-json/go-text.js';
import { goLiteralRefusal } from './go-json/go-literals.js';
import { goSyntaxError } from './go-json/go-json-syntax.js';
import { firstIssue } from './first-issue.js';
import { compiledOnFirstUse } from './compiled-schema.js';

export type LogItem = { type: 'batch'; batch: CommittedBatch } | { type: 'torn-tail'; tail: TornTail };

export interface ReadBatchesOptions {
  /** Named in errors. */
  file?: string;
  /** The sequence the first batch must start at: 1 for a whole log, more when reading from a cursor. */
  nextSequence?: number;
  /** Event kinds accepted without `optional: true`; Reasonix 1.38.11's by default. */
  knownKinds?: ReadonlySet<string>;
}

const NUL = Buffer.from([0]);

/** The batch being read: its begin record and the events seen so far. */
interface OpenBatch {
  batch: CommittedBatch;
  digest: Hash;
}

/**
 * Groups frames into committed batches exactly as Reasonix 1.38.11 does (docs/format.md §5): a batch counts
 * only once its `batch/end` matches and its SHA-256 over the raw record bytes verifies. An
 * unfinished final batch is never yielded; it comes back as a `torn-tail` item, the last one.
 * A frame's bytes are hashed and parsed before the next frame is taken, and not kept, so frames
 * read with `transientRaw` will do.
 */
export function readBatches(
  frames: AsyncIterable<FrameItem>,
  options: ReadBatchesOptions = {},
): AsyncGenerator<LogItem> {
  return verifiedBatches(frames, options, new OperationLedger());
}

/** What `verifiedBatches` asks of the operations seen so far: admit one, or say the hash it conflicts with. */
export interface OperationAdmission {
  admit(
    operationId: string,
    operationHash: string,
    batchOffset: number,
  ): string | undefined | Promise<string | undefined>;
}

/** `readBatches`, judging operation ids by the ledger given (a reader of a file keeps a smaller one). */
export async function* verifiedBatches(
  frames: AsyncIterable<FrameItem>,
  options: ReadBatchesOptions,
  operations: OperationAdmission,
): AsyncGenerator<LogItem> {
  const file = options.file;
  const knownKinds = options.knownKinds ?? KNOWN_EVENT_KINDS;
  let nextSequence = options.nextSequence ?? 1;
  let open: OpenBatch | undefined;
  let logEnd: number | undefined;

  const damage = (message: string, offset: number, extra: Partial<DamagedStoreError['data']> = {}) =>
    new DamagedStoreError(message, { file, offset, ...extra });

  for await (const item of frames) {
    if (item.type === 'incomplete') {
      const start = open ? open.batch.offset : item.tail.offset;
      yield {
        type: 'torn-tail',
        tail: {
          offset: start,
          bytes: item.tail.offset + item.tail.bytes - start,
          reason: open ? 'unfinished batch' : item.tail.reason,
        },
      };
      return;
    }
    const { offset, raw } = item.frame;
    logEnd = offset + item.frame.frameBytes;
    const record = parseRecord(raw, offset, file);
    if (record.schemaVersion !== V4_SCHEMA_VERSION || record.codec !== V4_CODEC) {
      throw new UnsupportedVersionError(`v4 physical record at ${offset}`, {
        file,
        offset,
        expected: `schemaVersion ${V4_SCHEMA_VERSION}, codec ${V4_CODEC}`,
      });
    }
    switch (record.recordType) {
      case 'batch/begin': {
        if (open) throw damage(`nested v4 batch at ${offset}`, offset, { commitId: open.batch.commitId });
        const begin = record;
        if (
          !begin.commitId ||
          !begin.operationId ||
          !begin.operationHash ||
          !begin.writerGeneration ||
          begin.firstSeq !== nextSequence ||
          !begin.eventCount ||
          begin.eventCount <= 0
        ) {
          throw damage(`invalid v4 batch boundary at sequence ${nextSequence}`, offset, {
            sequence: nextSequence,
            expected: `firstSeq ${nextSequence}, non-empty commitId/operationId/operationHash, writerGeneration ≥ 1, eventCount ≥ 1`,
            found: `firstSeq ${begin.firstSeq ?? 0}`,
          });
        }
        const digest = createHash('sha256');
        digest.update(raw).update(NUL);
        open = {
          digest,
          batch: {
            commitId: begin.commitId,
            operationId: begin.operationId,
            operationHash: begin.operationHash,
            firstSeq: begin.firstSeq,
            eventCount: begin.eventCount,
            ...(begin.turnId ? { turnId: begin.turnId } : {}),
            writerGeneration: begin.writerGeneration,
            createdAt: begin.createdAt ?? '',
            sha256: '',
            events: [],
            offset,
            end: offset,
          },
        };
        break;
      }
      case 'batch/event': {
        if (!open || !record.event || open.batch.events.length >= open.batch.eventCount) {
          throw damage(`v4 event outside batch at ${offset}`, offset);
        }
        const physical = record.event;
        const wantSequence = open.batch.firstSeq + open.batch.events.length;
        if (
          !physical.id ||
          !physical.kind?.trim() ||
          physical.seq !== wantSequence ||
          (physical.payload !== undefined && physical.payloadRef !== undefined)
        ) {
          throw damage(`invalid v4 event at sequence ${wantSequence}`, offset, {
            sequence: wantSequence,
            commitId: open.batch.commitId,
            found: `seq ${physical.seq ?? 0}`,
          });
        }
        const event: StoredEvent = {
          id: physical.id,
          seq: wantSequence,
          kind: physical.kind,
          optional: physical.optional ?? false,
          required: physical.required ?? false,
          offset,
        };
        if (physical.payload && physical.payload.length > 0) event.payload = physical.payload;
        if (physical.payloadRef) event.payloadRef = physical.payloadRef;
        open.batch.events.push(event);
        open.digest.update(raw).update(NUL);
        break;
      }
      case 'batch/end': {
        const end = record;
        if (
          !open ||
          end.commitId !== open.batch.commitId ||
          end.firstSeq !== open.batch.firstSeq ||
          end.eventCount !== open.batch.eventCount ||
          open.batch.events.length !== open.batch.eventCount
        ) {
          throw damage(`invalid v4 batch end at ${offset}`, offset, open ? { commitId: open.batch.commitId } : {});
        }
        const batch = open.batch;
        const got = open.digest.digest('hex');
        if (end.sha256 !== got) {
          throw damage(`v4 batch ${batch.commitId} checksum is ${end.sha256 ?? ''}, expected ${got}`, offset, {
            commitId: batch.commitId,
            expected: got,
            found: end.sha256 ?? '',
          });
        }
        let prior = operations.admit(batch.operationId, batch.operationHash, batch.offset);
        // Stryker disable next-line ConditionalExpression: awaiting a value that is not a promise gives the value
        if (prior instanceof Promise) prior = await prior;
        if (prior !== undefined) throw conflictingOperation(file, batch, prior);
        for (const event of batch.events) {
          if (!event.optional && !knownKinds.has(event.kind)) {
            throw new UnsupportedVersionError(`unknown required event ${JSON.stringify(event.kind)}`, {
              file,
              offset: event.offset,
              sequence: event.seq,
              commitId: batch.commitId,
              found: event.kind,
            });
          }
        }
        batch.sha256 = got;
        batch.end = logEnd;
        nextSequence = batch.firstSeq + batch.eventCount;
        open = undefined;
        yield { type: 'batch', batch };
        break;
      }
      default:
        throw new UnsupportedVersionError(`unknown v4 physical record ${JSON.stringify(record.recordType ?? '')}`, {
          file,
          offset,
          found: record.recordType ?? '',
        });
    }
  }
  if (open) {
    const end = logEnd ?? open.batch.offset;
    yield {
      type: 'torn-tail',
      tail: { offset: open.batch.offset, bytes: end - open.batch.offset, reason: 'unfinished batch' },
    };
  }
}

/**
 * A frame's record as Reasonix decodes it: JSON read as Go reads it, into the one struct every record
 * shares; a value of the wrong type in any field is damage.
 */
function parseRecord(raw: Buffer, offset: number, file: string | undefined): V4Record {
  let value: unknown;
  const text = goText(raw);
  try {
    value = parseGoJsonText(text);
  } catch (error) {
    // In Go's words, as Reasonix says it (`invalid character 'x' looking for beginning of value`).
    throw new DamagedStoreError(`decode v4 record at ${offset}: ${goSyntaxError(text, error as Error).words}`, {
      file,
      offset,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DamagedStoreError(`decode v4 record at ${offset}: not a JSON object`, { file, offset });
  }
  const result = compiledRecord().safeParse(value);
  if (!result.success) {
    throw new DamagedStoreError(
      `decode v4 record at ${offset}: ${recordTypeNamed(value)}${firstIssue(result.error, null)}`,
      { file, offset },
    );
  }
  const written = goLiteralRefusal(text, RECORD_LITERALS);
  if (written)
    throw new DamagedStoreError(`decode v4 record at ${offset}: ${recordTypeNamed(value)}${written}`, { file, offset });
  return result.data;
}

/** The record schema compiled (a read checks a record per frame): see compiled-schema.ts. */
const compiledRecord = compiledOnFirstUse(V4RecordSchema);

/** A refused record's type, as the start of its message (built only for a record that fails). */
function recordTypeNamed(value: object): string {
  const type = (value as { recordType?: unknown }).recordType;
  // Stryker disable next-line StringLiteral,ConditionalExpression: a record refused by its schema has a string recordType (the type picks the schema)
  return typeof type === 'string' ? `${type}: ` : '';
}
