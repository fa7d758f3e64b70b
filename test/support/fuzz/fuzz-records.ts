import { createHash } from 'node:crypto';
import { encodeFrame } from '../../../src/codec/frame.js';
import { V4_CODEC, V4_SCHEMA_VERSION, ZERO_TIME } from '../../../src/codec/records.js';
import type { BaseSession } from './fuzz-bases.js';
import { withLog, type Draft } from './fuzz-drafts.js';

/** Building RX4F records and batches for hostile inputs: raw JSON parts, own `__proto__` keys, resealed digests. */

/**
 * JSON whose values may be raw bytes: nesting too deep for JSON.stringify, numbers JS cannot
 * hold, text that is not UTF-8. `raw()` returns a stand-in string that `encode()` swaps for them.
 */
export class RawJson {
  private readonly parts: Buffer[] = [];

  raw(bytes: Buffer | string): string {
    this.parts.push(Buffer.from(bytes));
    return `\u0001raw:${this.parts.length - 1}\u0001`;
  }

  encode(value: unknown): Buffer {
    const text = JSON.stringify(value) ?? 'null';
    const out: Buffer[] = [];
    let last = 0;
    for (const match of text.matchAll(/"\\u0001raw:(\d+)\\u0001"/g)) {
      out.push(Buffer.from(text.slice(last, match.index)), this.parts[Number(match[1])]!);
      last = match.index + match[0].length;
    }
    out.push(Buffer.from(text.slice(last)));
    return Buffer.concat(out);
  }
}

const sha256 = (parts: Buffer[]) =>
  parts.reduce((hash, part) => hash.update(part).update(Buffer.from([0])), createHash('sha256')).digest('hex');

export function beginRecord(firstSeq: number, eventCount: number, fields: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      schemaVersion: V4_SCHEMA_VERSION,
      codec: V4_CODEC,
      recordType: 'batch/begin',
      commitId: `fuzz-commit-${firstSeq}`,
      operationId: `fuzz:${firstSeq}`,
      operationHash: '0'.repeat(64),
      firstSeq,
      eventCount,
      writerGeneration: 1,
      createdAt: '2026-01-02T03:04:05.123456789Z',
      ...fields,
    }),
  );
}

export interface EventOptions {
  optional?: boolean;
  /** Extra fields of the record and of its `event` object (own properties, so `__proto__` stays a key). */
  recordFields?: Record<string, unknown>;
  eventFields?: Record<string, unknown>;
}

/** A `batch/event` record; `payload` is JSON-encoded (raw parts allowed) and stored as base64. */
export function eventRecord(
  seq: number,
  kind: string,
  payload: unknown,
  json: RawJson,
  options: EventOptions = {},
): Buffer {
  const event: Record<string, unknown> = { id: `fuzz-event-${seq}`, seq, kind };
  if (options.optional) event.optional = true;
  if (payload !== undefined) event.payload = json.encode(payload).toString('base64');
  for (const [key, value] of Object.entries(options.eventFields ?? {})) setOwn(event, key, value);
  const record: Record<string, unknown> = {
    schemaVersion: V4_SCHEMA_VERSION,
    codec: V4_CODEC,
    recordType: 'batch/event',
    createdAt: ZERO_TIME,
    event,
  };
  for (const [key, value] of Object.entries(options.recordFields ?? {})) setOwn(record, key, value);
  return json.encode(record);
}

/** The end record of a batch, with the digest its records really have (docs/format.md §5.1). */
export function resealEnd(end: unknown, hashed: Buffer[], json: RawJson): Buffer {
  const digest = sha256(hashed);
  if (!isObject(end)) return json.encode(end);
  end.sha256 = digest;
  return json.encode(end);
}

/** The base with one more batch after its last, holding `events`, sealed with the right digest. */
export function appended(
  base: BaseSession,
  recipe: string,
  events: Buffer[],
  beginFields: Record<string, unknown> = {},
): Draft {
  const begin = beginRecord(base.nextSeq, events.length, beginFields);
  const end = Buffer.from(
    JSON.stringify({
      schemaVersion: V4_SCHEMA_VERSION,
      codec: V4_CODEC,
      recordType: 'batch/end',
      commitId: beginFields.commitId ?? `fuzz-commit-${base.nextSeq}`,
      firstSeq: base.nextSeq,
      eventCount: events.length,
      createdAt: ZERO_TIME,
      sha256: sha256([begin, ...events]),
    }),
  );
  return withLog(
    base,
    `appended batch: ${recipe}`,
    Buffer.concat([base.log, ...[begin, ...events, end].map(encodeFrame)]),
  );
}

/** The messages an event record's payload holds (`message`, or `messages` of a history kind). */
export function messagesIn(record: unknown): Record<string, unknown>[] {
  return isObject(record) && isObject(record.event) ? messagesOfPayload(parsedPayload(record.event)) : [];
}

export function messagesOfPayload(payload: unknown): Record<string, unknown>[] {
  if (!isObject(payload)) return [];
  return [payload.message, ...(Array.isArray(payload.messages) ? payload.messages : [])].filter(isObject);
}

export function parsedPayload(event: Record<string, unknown>): unknown {
  if (typeof event.payload !== 'string') return undefined;
  try {
    return JSON.parse(Buffer.from(event.payload, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own property even for `__proto__`, which plain assignment would take as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
