export type { CommittedBatch, StoredEvent, TornTail } from './batch.js';
export { ContentStore, contentRootFor, CONTENT_DIR, INTEGRITY_BLOCK_BYTES } from './content-store.js';
export {
  encodeBatch,
  INLINE_PAYLOAD_LIMIT,
  type BatchToWrite,
  type EventToWrite,
  type EncodedBatch,
  type BatchPlacement,
} from './encode-batch.js';
export {
  CorruptContentError,
  DamagedStoreError,
  EnvironmentError,
  InvalidInputError,
  MissingContentError,
  RefusedError,
  RxError,
  UnsupportedVersionError,
  WriterOwnedError,
  ZstdUnavailableError,
  type CodeOf,
  type ErrorData,
  type RxErrorCode,
  type RxErrorFamily,
} from '../errors/index.js';
export { KNOWN_EVENT_KINDS } from './event-kinds.js';
export { encodeFrame, FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES, FRAME_MAGIC, type Frame } from './frame.js';
export { FrameParser, type FrameParserOptions, type IncompleteFrame } from './frame-parser.js';
export { goJson, goTime } from './go-json/go-json.js';
export { operationHash, type HashedEvent } from './operations/operation-hash.js';
export { readBatches, type LogItem, type ReadBatchesOptions } from './read-batches.js';
export { openLogBytes, readFrames, type ByteSource, type FrameItem, type ReadFramesOptions } from './read-frames.js';
export {
  PayloadRefSchema,
  PhysicalEventSchema,
  V4_CODEC,
  V4_SCHEMA_VERSION,
  V4RecordSchema,
  type PayloadRef,
  type V4Record,
} from './records.js';
export { zstd } from './zstd/zstd.js';
export type { ZstdBackend } from './zstd/zstd-backend.js';
