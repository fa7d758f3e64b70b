/**
 * rxstore's library: what indexers, backup and migration scripts import. It never loads the CLI.
 *
 * Start with `openSession(path)` for one session of any store, or `machineRoots()` and
 * `listSessions()` for every session on a machine. The lower layers (frames, batches, the
 * content store) and the zod schemas of every record and payload are exported for tools that
 * need them; every error is an `RxError` with a stable `code` and typed `data`.
 */

// One session of any store, its views, events, records, cursors and live following.
export { openLogSession, openSession, type OpenedLogSession, type OpenedSession, type OpenedTranscript } from './store/open-session.js';
export { readSession, type ReadSessionOptions, type SessionRead, type SessionStatus } from './session/reading/read-session.js';
export { readJsonlSession } from './store/jsonl/read-jsonl-session.js';
export { readSessionEvents, type ResolvedBatch, type SessionLogItem } from './session/reading/read-events.js';
export { canonicalTranscript, modelView, personView, providerMessages, type PersonMessage, type ProviderMessage, type TimedMessage } from './session/replay/views.js';
export { Projection, type MessageKeeping, type ProjectionOptions, type TranscriptEntry, type TurnRecord } from './session/replay/projection.js';
export { checkHygiene, type Hygiene, type HygieneFinding } from './session/replay/hygiene.js';
export { inspectReport, type InspectReport } from './session/replay/inspect-report.js';
export type { SessionProblem } from './errors/problem.js';
export { workspaceOf } from './session/reading/workspace.js';
export { indexRecords, type IndexRecord, type RecordContext } from './session/replay/index-records.js';
export { CursorMismatchError, CursorSchema, type Cursor } from './session/cursors/cursor.js';
export { batchesSince, readSince, type BatchSince, type ReadSince, type ReadSinceOptions } from './session/cursors/read-since.js';
export { recordsSince, RecordsCursorSchema, type RecordsCursor, type RecordsSince } from './session/cursors/records-since.js';
export { followSession, type FollowOptions } from './session/cursors/follow.js';

// Writing: new sessions, appends, repair and salvage, Reasonix's locks.
export { createSession, SessionExistsError, type CreatedSession, type NewSession } from './session/writing/create-session.js';
export { appendBatches, type AppendOptions } from './session/writing/append-batches.js';
export { RefusedBatchError } from './session/writing/validate-batches.js';
export { repairSession, type RepairReport } from './session/writing/repair-session.js';
export { salvageSession, type SalvageReport } from './session/writing/salvage-session.js';
export { acquireWriterLocks, writerLockHolder, type WriterLocks } from './session/reading/writer-locks.js';

// Where sessions live.
export { machineRoots, type MachineRootOptions } from './store/roots/machine-roots.js';
export { resolveStoreRoots, reasonixHome, stateRoot, legacyRoots, type RootInputs, type StoreRoots, type ReadRoot } from './store/roots/roots.js';
export { listSessions, type ListOptions, type SessionListing } from './store/listing/list-sessions.js';
export { defaultCacheDir, SummaryCache } from './store/listing/summary-cache.js';
export type { ListedSession, ListedCopy } from './store/listing/describe-conversation.js';
export { locateSession, type SessionWhereabouts } from './store/locate-session.js';
export { SessionNotFoundError } from './errors/session-not-found-error.js';
export { workspaceSlug } from './store/roots/workspace-slug.js';
export { storeKindOf, type StoreKind } from './store/roots/store-kind.js';

// Migration and export.
export { migrateJsonlToV4, MigrationRefusedError, v4StoreForJsonlDir, type MigrationOptions, type MigrationReport } from './migrate/jsonl-to-v4.js';
export { exportSession, type ExportOptions, type ExportReport } from './migrate/export-session.js';

// Schemas of every JSON rxstore reads from disk.
export { ManifestSchema, ManifestSourceSchema, type Manifest } from './session/reading/manifest.js';
export { HeaderSchema, type Header } from './session/reading/header.js';
export { StorageIdentitySchema } from './session/reading/storage-identity.js';
export { OffsetIndexSchema } from './session/reading/offset-index.js';
export { MessageSchema, ToolCallSchema, type Message, type ToolCall } from './session/replay/message.js';
export { LenientMessageSchema, StrictMessageSchema, StrictToolCallSchema, StrictToolExecutionSchema } from './session/replay/strict-message.js';
export { decodePayload, PayloadSchemas, StrictPayloadSchemas, type PayloadVerdict } from './session/replay/payloads.js';
export { JsonlMetaSchema, type JsonlMeta } from './store/jsonl/jsonl-meta.js';
export { MigrationMapSchema, MigrationEntrySchema } from './migrate/migration-map.js';
export { DesktopRegistrySchema } from './store/roots/desktop-registry.js';

// The codec: frames, batches, records, the content store.
export * from './codec/index.js';
