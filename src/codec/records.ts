import { z } from 'zod';

/** The codec string every v4 record and manifest carries (docs/format.md §4.1). */
export const V4_CODEC = 'reasonix.session.linear/v4';
export const V4_SCHEMA_VERSION = 4;
/** Go's zero `time.Time`, which Reasonix writes on every event and end record (docs/format.md §4.5). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

const uint = z.number().int().nonnegative();
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');

/**
 * A content-store reference (docs/format.md §6.1). The digest is validated here so that no path built
 * from it can leave the store.
 */
export const PayloadRefSchema = z.object({
  digest: hex64,
  bytes: uint,
  mediaType: z.string().optional(),
  name: z.string().optional(),
  indexDigest: hex64.optional(),
  integrityBlockBytes: uint.optional(),
});
/** Where a payload over 64 KiB lives: its digest and size in the content store (docs/format.md §6). */
export type PayloadRef = z.infer<typeof PayloadRefSchema>;

/** The fields every physical record shares; checked first, since a mismatch means "unsupported". */
export const RecordEnvelopeSchema = z.object({
  schemaVersion: z.number().optional(),
  codec: z.string().optional(),
  recordType: z.string().optional(),
});

// Go fills a missing field with its zero value and then checks it, so the shapes below only
// require the right JSON types; the batch reader checks the values with Reasonix's messages.
export const BeginRecordSchema = z.object({
  commitId: z.string().optional(),
  operationId: z.string().optional(),
  operationHash: z.string().optional(),
  firstSeq: uint.optional(),
  eventCount: z.number().int().optional(),
  turnId: z.string().optional(),
  writerGeneration: uint.optional(),
  createdAt: z.iso.datetime({ offset: true }).optional(),
});
export type BeginRecord = z.infer<typeof BeginRecordSchema>;

/**
 * Inline payloads are standard base64 with padding, decoded as Go's `encoding/json` decodes them
 * (docs/format.md §4.3): CR and LF are ignored, unpadded or URL-safe text is refused. Node's decoder skips
 * what it does not know, so the decoded length is what tells a bad character (no regular
 * expression runs over payloads of megabytes).
 */
const paddedBase64 = z.string().transform((raw, context) => {
  const text = raw.includes('\n') || raw.includes('\r') ? raw.replace(/[\r\n]/g, '') : raw;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = text.length % 4 === 0 && !text.includes('-') && !text.includes('_') ? Buffer.from(text, 'base64') : undefined;
  if (!bytes || bytes.length !== (text.length / 4) * 3 - padding) {
    context.issues.push({ code: 'custom', message: 'illegal base64 data', input: raw });
    return z.NEVER;
  }
  return bytes;
});

export const PhysicalEventSchema = z.object({
  id: z.string().optional(),
  seq: uint.optional(),
  kind: z.string().optional(),
  optional: z.boolean().optional(),
  required: z.boolean().optional(),
  payload: paddedBase64.optional(),
  payloadRef: PayloadRefSchema.optional(),
});

export const EventRecordSchema = z.object({
  createdAt: z.iso.datetime({ offset: true }).optional(),
  event: PhysicalEventSchema.optional(),
});

export const EndRecordSchema = z.object({
  commitId: z.string().optional(),
  firstSeq: uint.optional(),
  eventCount: z.number().int().optional(),
  createdAt: z.iso.datetime({ offset: true }).optional(),
  sha256: z.string().optional(),
});
