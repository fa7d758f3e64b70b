export {
  RX_ERROR_FAMILIES,
  familyOf,
  isRxErrorCode,
  type CodeOf,
  type RxErrorCode,
  type RxErrorFamily,
} from './codes.js';
export { RxError, isSessionVerdict, type ErrorData } from './rx-error.js';
export {
  BatchChangedError,
  CorruptContentError,
  DamagedStoreError,
  isCutAfter,
  LogChangedWhileSalvagedError,
  LogCutWhileReadError,
  MissingContentError,
  RefusedAsDamagedError,
  StrictPayloadError,
  TranscriptLineError,
  UnsupportedVersionError,
  ZstdSizeMismatch,
} from './store-errors.js';
export { InvalidInputError, PathKindError, UsageError } from './input-errors.js';
export {
  AmbiguousSessionError,
  EmptyTranscriptError,
  LookupError,
  NotASessionError,
  SessionNotFoundError,
  type SessionCandidate,
} from './lookup-errors.js';
export {
  CursorMismatchError,
  ExportRefusedError,
  MigrationRefusedError,
  NothingToSalvageError,
  NotRegularFileError,
  OverwriteRefusedError,
  RefusedBatchError,
  RefusedError,
  RelocationRefusedError,
  SessionExistsError,
  TurnRefusedError,
  WriterOwnedError,
} from './refusal-errors.js';
export {
  EnvironmentError,
  FileSystemError,
  fileSystemErrorOf,
  onFileSystem,
  ShortWriteError,
  StoreLockCompromisedError,
  TooLargeError,
  undefinedIfMissing,
  ZstdUnavailableError,
} from './environment-errors.js';
export { errorFromProblem, problemFromError, promoteWarnings, type Problem, type Severity } from './problem.js';
export { describeSystemError, destinationOf, isSystemError, systemErrorInWords } from './system-error.js';
