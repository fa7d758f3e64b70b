import * as z from 'zod';
import { goBool, goInt, goPointer, goString, goStruct, goUint } from './go-json/go-decode.js';
import { goRfc3339 } from './go-json/go-time.js';
import { goLiteralFields } from './go-json/go-literals.js';

/** The codec string every v4 record and manifest carries (docs/format.md §4.1). */
export const V4_CODEC = 'reasonix.session.linear/v4';
export const V4_SCHEMA_VERSION = 4;
export { ZERO_TIME } from './go-json/go-time.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');

/**
 * A content-store reference (docs/format.md §6.1). The digest is validated here so that no path built
 * from it can leave the store.
 */
export const PayloadRefSchema = goStruct(
  {
    digest: hex64,
    // An int64 in Reasonix's struct (its refusal names the type): -1 decodes, 2^63 does not.
    bytes: goInt,
    mediaType: goString,
    name: goString,
    // "" is Go's zero value: no index, as Reasonix reads it.
    indexDigest: z.union([z.literal(''), hex64]),
    // An int64, read only with an index (the content store then holds it to its one block size).
    integrityBlockBytes: goInt,
  },
  'drop',
).transform((ref, context) => {
  // Go's zero digest, "", names no object.
  if (ref.digest !== undefined) {
    const { indexDigest, ...rest } = ref;
    return { ...rest, ...(indexDigest ? { indexDigest } : {}), digest: ref.digest, bytes: ref.bytes ?? 0 };
  }
  // Stryker disable next-line StringLiteral: the issue's code (custom): rxstore shows the issue's path and message, never its code (checked by hand with …
  context.issues.push({ code: 'custom', message: 'expected 64 lower-case hex digits', path: ['digest'], input: ref });
  return z.NEVER;
});
/** Where a payload over 64 KiB lives: its digest and size in the content store (docs/format.md §6). */
export type PayloadRef = z.infer<typeof PayloadRefSchema>;

/**
 * Inline payloads are standard base64 with padding, decoded as Go's `encoding/json` decodes them
 * (docs/format.md §4.3): CR and LF are ignored, unpadded or URL-safe text is refused. Node's decoder skips
 * what it does not know, so the decoded length is what tells a bad character (no regular
 * expression runs over payloads of megabytes).
 */
const paddedBase64 = z.string().transform((raw, context) => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: it only spares a replace that would change nothing
  const text = raw.includes('\n') || raw.includes('\r') ? raw.replace(/[\r\n]/g, '') : raw;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  // Stryker disable next-line ConditionalExpression: a length not a multiple of 4 fails the decoded-length check anyway
  const bytes =
    text.length % 4 === 0 && !text.includes('-') && !text.includes('_') ? Buffer.from(text, 'base64') : undefined;
  if (!bytes || bytes.length !== (text.length / 4) * 3 - padding) {
    // Stryker disable next-line StringLiteral: not the message (which codec-batch-rules checks): the issue's code, as for go-time.ts line 46
    context.issues.push({ code: 'custom', message: 'illegal base64 data', input: raw });
    return z.NEVER;
  }
  return bytes;
});

/** The event a `batch/event` record carries. */
export const PhysicalEventSchema = goStruct(
  {
    id: goString,
    seq: goUint,
    kind: goString,
    optional: goBool,
    required: goBool,
    // A `[]byte`: `null` is nil, as no payload.
    payload: paddedBase64.nullable(),
    payloadRef: goPointer(PayloadRefSchema),
  },
  'drop',
);

/**
 * Every physical record, as Reasonix 1.38.11 decodes it: into one Go struct whatever its `recordType`
 * (a field of the wrong type is refused in any record), keys matched in any case, `null` as the zero
 * value, unknown keys ignored. Go fills a missing field with its zero value and then checks it, so the
 * shape only requires the right JSON types; the batch reader checks the values with Reasonix's messages.
 */
export const V4RecordSchema = goStruct(
  {
    schemaVersion: goInt,
    codec: goString,
    recordType: goString,
    commitId: goString,
    operationId: goString,
    operationHash: goString,
    firstSeq: goUint,
    eventCount: goInt,
    turnId: goString,
    writerGeneration: goUint,
    createdAt: goRfc3339,
    event: goPointer(PhysicalEventSchema),
    sha256: goString,
  },
  'drop',
);
/** A physical record of a v4 log, whichever its type. */
export type V4Record = z.infer<typeof V4RecordSchema>;

/** The integer fields of a record, which Go refuses written as `1.0` or `1e2`, and its time, written with no escape. */
export const RECORD_LITERALS = goLiteralFields({
  createdAt: 'time',
  schemaVersion: 'int',
  firstSeq: 'uint64',
  eventCount: 'int',
  writerGeneration: 'uint64',
  'event.seq': 'uint64',
  'event.payloadRef.bytes': 'int64',
  'event.payloadRef.integrityBlockBytes': 'int64',
});
