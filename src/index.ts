/**
 * rxstore's library: what indexers, backup and migration scripts import. It never loads the CLI.
 *
 * Start with `openSession(path)` for one session of any store, or `machineRoots()` and
 * `listSessions()` for every session on a machine. Every error is an `RxError` with a stable
 * `code` and typed `data`. The low-level codec (frames, batches, records, the content store) is
 * a separate entry, `reasonix-sessions/codec`, for tools that work below sessions.
 *
 * @packageDocumentation
 */

// Opening a session of any store, and what reading it tells.
export {
  openLogSession,
  openSession,
  type CursorFileOptions,
  type OpenedLogSession,
  type OpenedSession,
  type OpenedTranscript,
  type SessionReadOptions,
} from './store/open-session.js';
export {
  reasonixRefuses,
  workspaceOf,
  type ReadSessionOptions,
  type SessionRead,
  type SessionStatus,
} from './session/verdict/read-session.js';
export type { ResolvedBatch, SessionLogItem } from './session/reading/read-events.js';
export { setLogWorkers } from './codec/log-worker/log-worker-pool.js';
export { tuneV8ForReading } from './codec/log-worker/reading-v8-flags.js';

// Its views, records and reports.
export {
  personView,
  providerMessages,
  type PersonMessage,
  type ProviderMessage,
  type TimedMessage,
} from './session/replay/views.js';
export type { MessageKeeping, TranscriptEntry, TurnRecord } from './session/replay/projection.js';
export type { ArgumentsShape, IndexedCall, IndexedTranscript } from './session/replay/transcript-index.js';
export type { Turns, TurnStatus } from './session/replay/turn-table.js';
export type { TurnLeftOpen } from './session/reading/turn-left-open.js';
export type {
  IndexRecord,
  RecordContext,
  RecordChange,
  RemovedRecord,
  KeyedMessage,
} from './session/replay/index-records.js';
export { checkHygiene, type Hygiene, type HygieneFinding } from './session/replay/hygiene.js';
// The schemas behind these types are exported as types only: a caller names them, the main entry stays small.
export type { TurnRepair, TurnRepairChange, TurnRepairChangeSchema } from './session/writing/turn-repair.js';
export type {
  GateCall,
  GateCallSchema,
  GateMessage,
  GateMessageSchema,
  GatePlace,
  GatePlaceSchema,
  GateVerdict,
} from './session/replay/transcript-gate.js';
export {
  inspectReport,
  type InspectOptions,
  type InspectReport,
  type ReportedProblem,
} from './session/verdict/inspect-report.js';

// Reading what is new since last time, and following a live session: an opened session's
// `batchesSince()`, `readSince()`, `recordsSince()` and `follow()` take and give these.
export type { Cursor, CursorSchema } from './session/cursors/cursor.js';
export type { BatchSince, ReadSince, ReadSinceOptions } from './session/cursors/read-since.js';
export type {
  AcceptedRecordsCursor,
  AcceptedRecordsCursorSchema,
  RecordsCursor,
  RecordsCursorSchema,
  RecordsSince,
  RecordsSinceOptions,
  SessionFields,
  StreamStatus,
} from './session/cursors/records-since.js';
export type { TranscriptWrites, WrittenMessage } from './session/cursors/transcript-writes.js';
export type { FollowOptions } from './session/cursors/follow.js';
// Every session under the roots since a checkpoint: the indexer's one call.
export {
  indexSince,
  type IndexedSession,
  type IndexPiece,
  type IndexProblem,
  type IndexRun,
  type IndexSinceOptions,
} from './store/indexing/index-since.js';
export type { IndexCheckpoint, IndexCheckpointSchema } from './store/indexing/index-checkpoint.js';

// Writing: new sessions, appends, repair and salvage, under Reasonix's locks.
export { createSession, type CreatedSession, type NewSession } from './session/writing/create-session.js';
export type { WriteBytes } from './fs/atomic-write.js';
export { appendBatches, type AppendOptions } from './session/writing/append-batches.js';
export { repairSession, type RepairReport } from './session/writing/repair-session.js';
export { salvageSession, type SalvageReport } from './session/writing/salvage-session.js';
export type { LeftOutMessages } from './session/writing/recovered-messages.js';
export { salvageTranscript, type DroppedLine, type TranscriptSalvageReport } from './migrate/salvage-transcript.js';
export { acquireWriterLocks, writerLockHolder, type WriterLocks } from './session/reading/writer-locks.js';
export type { BatchToWrite, EventToWrite } from './codec/encode-batch.js';

// Where sessions live: roots, listing, finding one.
export { machineRoots, type MachineRootOptions } from './store/roots/machine-roots.js';
export { goWorkingDirectory } from './store/roots/working-directory.js';
export { resolveStoreRoots, type RootInputs, type StoreRoots, type ReadRoot } from './store/roots/roots.js';
export { workspaceSlug } from './store/roots/workspace-slug.js';
export { STORES_NEWEST_FIRST, storeKindOf, type StoreKind } from './store/roots/store-kind.js';
export { listSessions, type ListOptions, type SessionListing } from './store/listing/list-sessions.js';
export { sessionWorkspace } from './store/listing/store-workspace.js';
export type { ListedSession, ListedCopy } from './store/listing/describe-conversation.js';
export type { CheckpointCover, GoesOnPastDamage } from './session/reading/checkpoint-cover.js';
export { defaultCacheDir, SummaryCache } from './store/listing/summary-cache.js';
export { locateSession, resumeOfCopy, type SessionWhereabouts } from './store/locate-session.js';
export { isPath, resolveSession, type ResolveSessionOptions } from './store/resolve-session.js';
export { shellCommand, type ShellCommandOptions } from './store/roots/shell-command.js';

// Migration and export.
export { migrateJsonlToV4, type MigrationOptions, type MigrationReport } from './migrate/jsonl-to-v4.js';
export {
  migrateTranscripts,
  type MigrationRun,
  type TranscriptFailure,
  type TranscriptMigration,
  type TranscriptMigrationOptions,
  type TranscriptOutcome,
} from './migrate/migrate-transcripts.js';
export {
  exportSession,
  exportStream,
  type ExportedStream,
  type ExportedText,
  type ExportOptions,
  type ExportReport,
  type ExportSource,
  type ExportTextOptions,
} from './migrate/export-session.js';

// Pages a person reads: one session's, or a site of every session, through a renderer.
export {
  writePages,
  type SessionPage,
  type SessionPageOptions,
  type SitePagesOptions,
} from './site/write-pages.js';
export type { PageRenderer } from './site/page-renderer.js';
export type { GeneratorMarks } from './site/page-file.js';
export type { SiteReport } from './site/write-site.js';
export type { SitePage, SitePageSchema } from './site/site-state.js';
export type { SessionView, SessionViewOptions, ViewHeader, ViewItem } from './site/session-view.js';
export type { ToolCallView, ToolResultView } from './site/tool-call-view.js';
export type { DiffLine } from './site/edit-diff.js';

// Moving a project folder's sessions to where the project is now.
export { planRelocation, type RelocationOptions } from './relocate/plan-relocation.js';
export { relocate, type RelocationReport } from './relocate/relocate.js';
export type {
  PlannedSession,
  PlannedSessionSchema,
  RelocationPlan,
  RelocationPlanSchema,
  StorePlan,
  StorePlanSchema,
} from './relocate/relocation-plan.js';

// The schemas of the JSON files a session is made of, and of what its events carry, are types here;
// their zod values are the codec entry's (`reasonix-sessions/codec`).
export type { Manifest, ManifestSchema } from './session/reading/manifest.js';
export type { Header, HeaderSchema } from './session/reading/header.js';
export type { Message, MessageSchema, ToolCall, ToolCallSchema } from './session/replay/message.js';
export type { PayloadVerdict } from './session/replay/payloads.js';
export type { JsonlMeta, JsonlMetaSchema } from './store/jsonl/jsonl-meta.js';
export type { MigrationMapSchema } from './migrate/migration-map.js';

// Text as rxstore shows and writes it: control and invisible format characters escaped, JSON of any
// depth, times in ISO 8601 UTC.
export { printable, type PrintableOptions } from './text/printable.js';
export { jsonText } from './codec/go-json/json-text.js';
export { isoTime } from './codec/iso-time.js';

// Errors: every error rxstore throws is an RxError whose `code` (one union, docs/error-codes.md) names
// it and whose family says what kind of trouble it is; a caller narrows on `code` or on these classes.
export {
  // The base, then each family with the classes in it.
  RxError,
  DamagedStoreError,
  BatchChangedError,
  CorruptContentError,
  LogChangedWhileSalvagedError,
  LogCutWhileReadError,
  MissingContentError,
  RefusedAsDamagedError,
  StrictPayloadError,
  TranscriptLineError,
  ZstdSizeMismatch,
  UnsupportedVersionError,
  InvalidInputError,
  PathKindError,
  UsageError,
  LookupError,
  AmbiguousSessionError,
  EmptyTranscriptError,
  NotASessionError,
  SessionNotFoundError,
  RefusedError,
  CursorMismatchError,
  ExportRefusedError,
  MigrationRefusedError,
  NothingToSalvageError,
  NotRegularFileError,
  OverwriteRefusedError,
  RefusedBatchError,
  RelocationRefusedError,
  SessionExistsError,
  TurnRefusedError,
  WriterOwnedError,
  EnvironmentError,
  FileSystemError,
  ShortWriteError,
  StoreLockCompromisedError,
  TooLargeError,
  ZstdUnavailableError,
  RX_ERROR_FAMILIES,
  isSessionVerdict,
  type CodeOf,
  type ErrorData,
  type Problem,
  type RxErrorCode,
  type RxErrorFamily,
  type SessionCandidate,
  type Severity,
} from './errors/index.js';

// Types that appear in the signatures above.
export type { CommittedBatch, StoredEvent, TornTail } from './codec/batch.js';
export type { PayloadRef, PayloadRefSchema } from './codec/records.js';
export type { JsonFileResult } from './session/reading/read-json-file.js';
export type {
  BatchToReplay,
  Projection,
  ProjectionOptions,
  StrictnessFinding,
} from './session/replay/projection.js';
export type { ContentStore } from './codec/content-store.js';
export type { ReadEventsOptions } from './session/reading/read-events.js';
export type { HygieneOptions } from './session/replay/hygiene.js';
export type { RecordBase, ToolOutcome } from './session/replay/index-records.js';
export type { SessionReader } from './store/open-session.js';
export type { ListedStore } from './store/roots/store-kind.js';
export type { Platform } from './store/roots/platform.js';
export type { DirValueContext } from './store/roots/expand-dir-value.js';
export type { PinnedRoots, ReasonixLine, RootOverrides } from './store/roots/roots.js';
export type { ContentStamp, ContentStampSchema } from './store/listing/content-stamp.js';
export type {
  CopyRead,
  CopySummary,
  ListedStatus,
  WorkspaceSource,
} from './store/listing/summarise-copy.js';
export type { ParentSession } from './store/listing/group-conversations.js';
export type { CopyFacts, JsonlCopy, SessionCopy, V0Copy, V4Copy } from './store/listing/session-copy.js';
export type { V0Meta } from './store/listing/session-copy.js';
export type { StoreLocation } from './store/roots/store-location.js';
export type { DisplayTitle } from './session/replay/session-title.js';
export type { LocatedCopy } from './store/locate-session.js';
export type { ResumeContext, ResumeReason, ResumeVerdict } from './store/resume/resume-verdict.js';
export type { MigrationAction } from './migrate/jsonl-to-v4.js';
export type { MigrationTarget } from './migrate/migration-target.js';
export type { PinnedRoot } from './migrate/resume-command.js';
export type { ExportFormat, ExportView } from './migrate/export-session.js';
export type { ReadLogOptions } from './codec/read-log.js';
export type { SessionStatusSchema } from './session/verdict/read-session.js';
export type { WorkspaceSourceSchema } from './store/listing/summarise-copy.js';
export type { TitleSourceSchema } from './session/replay/session-title.js';
export type { ResumePoint, ResumePointSchema } from './store/listing/resume-point.js';

// Searching every session: words, phrases or a pattern, through an index kept in the cache folder.
export {
  search,
  type SearchOptions,
  type FoundHit,
  type AroundMessage,
  type NotSearchedWhole,
} from './search/search.js';
export type { SearchHit, SearchKind, SearchMatch } from './search/search-hit.js';
