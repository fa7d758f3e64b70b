import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { BatchesDigest } from './batches-digest.js';
import type { TornTail } from '../../codec/batch.js';
import { ContentStore, contentRootFor } from '../../codec/content-store.js';
import {
  errorFromProblem,
  fileSystemErrorOf,
  isSessionVerdict,
  LogCutWhileReadError,
  problemFromError,
  undefinedIfMissing,
  type Problem,
  type RxError,
} from '../../errors/index.js';
import type { Header } from '../reading/header.js';
import type { Manifest } from '../reading/manifest.js';
import { logIdentity, OffsetIndexSchema } from '../reading/offset-index.js';
import { Projection, type MessageKeeping } from '../replay/projection.js';
import { strictPayloadError } from '../replay/strict-payload-error.js';
import { newTurnProblem } from '../replay/transcript-gate.js';
import { readJsonFile } from '../reading/read-json-file.js';
import { readSessionEventsOn } from '../reading/read-events.js';
import type { LogReadingThread } from '../../codec/read-log.js';
import { ownershipLockPath, SESSION_FILES, TORN_EVIDENCE } from '../reading/session-files.js';
import { identityPrefixMatches, readStorageIdentity } from '../reading/storage-identity.js';
import { writerLockHolder } from '../reading/writer-locks.js';
import { readSessionDirectory } from '../reading/session-directory.js';
import { logFile } from '../reading/log-file.js';
import {
  MAX_CHECKPOINT_BYTES,
  queryCacheFiles,
  recoveryCacheAhead,
  recoveryCacheDamage,
  recoveryCheckpoint,
  type RecoveryCacheAhead,
} from '../reading/recovery-cache.js';
import { waitsForever } from '../../fs/waits-forever.js';
import {
  beforeAnchor,
  takenCheckpoint,
  type CheckpointCover,
  type GoesOnPastDamage,
  type TakenCheckpoint,
} from '../reading/checkpoint-cover.js';
import type { TurnLeftOpen } from '../reading/turn-left-open.js';

/**
 * What Reasonix would do with the session: open it and take a new turn (`ok`, `torn-tail`), open it
 * but refuse every new turn (`turn-refused`: its transcript gate refuses the model view), or refuse it.
 */
export const SessionStatusSchema = z.enum(['ok', 'torn-tail', 'turn-refused', 'damaged', 'unsupported']);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** Reasonix refuses a session with this status: it is damaged, or of a version it does not support. */
export function reasonixRefuses(status: string): status is 'damaged' | 'unsupported' {
  return status === 'damaged' || status === 'unsupported';
}

/** Everything `inspect` and the library learn from reading one v4 session directory. */
export interface SessionRead {
  dir: string;
  id: string;
  manifest?: Manifest;
  header?: Header;
  status: SessionStatus;
  problems: Problem[];
  batches: number;
  events: { total: number; byKind: Record<string, number> };
  payloadRefs: number;
  /**
   * The content-store files the read's payloadRefs resolved to (each object, and its integrity index
   * where the ref names one): what a payload of this session depends on outside its directory.
   */
  contentFiles: string[];
  tornTail: TornTail | null;
  /** Byte offset after the last committed batch. */
  durableEnd: number;
  /**
   * A digest of what the read took, in order: a log's committed batches (of each batch's own SHA-256),
   * a transcript's bytes up to its last message. A second read of the session that gives another
   * read something else (the session written over between the reads).
   */
  readDigest?: string;
  /**
   * A transcript's byte offset after its last message read: a second read stops there, so that lines
   * appended since (a transcript still written) are not taken for the first read's bytes changed.
   */
  readEnd?: number;
  lastSequence: number;
  /** The highest writerGeneration any batch carries. */
  writerGeneration: number;
  firstCommitAt?: string;
  lastCommitAt?: string;
  projection: Projection;
  /** `events.torn-*.tail` files: evidence a writer kept of a torn tail it cut. */
  tornEvidence: string[];
  /** Lock files present (their presence alone means nothing: the lock is an OS flock, docs/format.md §9.5). */
  lockFiles: string[];
  /** The lock file a running process holds: the session is open in a running Reasonix. */
  openBy?: string;
  /** The workspace the store's own metadata names (a JSONL transcript's `.jsonl.meta`). */
  declaredWorkspace?: string;
  /**
   * Why Reasonix would refuse the session (status `damaged` or `unsupported`): the first problem, as
   * the error every view of it throws once it has given what precedes the damage.
   */
  refusal?: RxError;
  /**
   * Reasonix goes on with the session all the same (status `damaged` or `unsupported`): every refusal lies in the
   * log before the anchor of its recovery checkpoint, which it opens the session from without reading them
   * (docs/format.md §9.10). Without that checkpoint (the cache removed, the storage identity renewed) it refuses.
   */
  goesOnFrom?: GoesOnPastDamage;
}

/** Whether `readSession` checks the caches against the log, and whether it keeps messages whole. */
export interface ReadSessionOptions {
  /** Check the storage identity and offset index against the log (default true); listing skips them. */
  caches?: boolean;
  /** What is kept of each message (default `whole`; see `MessageKeeping`). */
  keep?: MessageKeeping;
  /** With `keep: 'index'`, also the start of what a person typed in each message (a listing's titles). */
  previews?: boolean;
  /** @deprecated `keep`: true is `whole`, false `summary`. */
  retainContent?: boolean;
}

/**
 * Reads and verifies a sessions-v4 (or desktop-v5) session directory without changing it, and
 * says what Reasonix 1.38.11 would make of it (docs/format.md §2, §9, §13.1 step 3).
 */
export function readSession(dir: string, options: ReadSessionOptions = {}): Promise<SessionRead> {
  // Stryker disable next-line StringLiteral: which thread reads the log: both give the same items (log-read-in-worker)
  return readSessionOn('by size', dir, options);
}

/**
 * `readSession` with the log decoded where `thread` says: a stream built on a whole read
 * (`streamedRecords`) decodes on the caller's thread, as every stream does, to hold its memory.
 */
export async function readSessionOn(
  thread: LogReadingThread,
  dir: string,
  options: ReadSessionInternals = {},
): Promise<SessionRead> {
  const first = await readSessionOnce(thread, dir, options);
  // The log was cut while it was read (a repair cutting its torn tail; Reasonix's own when it opens the
  // session): nothing has been handed over yet, so the answer is the log as it now is, read once more.
  // A second cut in a row is the answer.
  // Stryker disable next-line ConditionalExpression: the session read twice gives the same answer (speed only)
  if (!first.cutWhileRead) return first.read;
  return (await readSessionOnce(thread, dir, options)).read;
}

/**
 * What rxstore's own callers may also ask of a read: the operation ids of its committed batches, taken
 * into `operations` (the summary cache's cursor carries them). A log cut while read is read again, and
 * its ids taken again: a filter holds an id twice as it holds it once.
 */
export interface ReadSessionInternals extends ReadSessionOptions {
  /** Where each committed batch's operation id is taken in (an `OperationsSeen`: cursors sit above verdicts). */
  operations?: { add(operationId: string): void };
  /**
   * The log read as if it ended before the batch that holds this sequence, and nothing judged past it (torn
   * tail, caches): what the records of a session Reasonix refuses there are made of (`recordsBeforeRefusal`).
   */
  endBefore?: number;
}

/** One read of the session, and whether its log was cut under it. */
async function readSessionOnce(
  thread: LogReadingThread,
  dir: string,
  options: ReadSessionInternals,
): Promise<{ read: SessionRead; cutWhileRead: boolean }> {
  const id = basename(dir);
  const problems: Problem[] = [];
  // Stryker disable next-line StringLiteral: keep "" behaves as whole (only summary and index are looked at)
  const projection = new Projection({
    keep: options.keep ?? (options.retainContent === false ? 'summary' : 'whole'),
    previews: options.previews ?? false,
    sessionId: id,
  });
  const read: SessionRead = {
    dir,
    id,
    status: 'ok',
    problems,
    batches: 0,
    // Null-prototype counters: kinds such as `constructor` or `__proto__` count like any other.
    events: { total: 0, byKind: Object.create(null) as Record<string, number> },
    payloadRefs: 0,
    contentFiles: [],
    tornTail: null,
    durableEnd: 0,
    lastSequence: 0,
    writerGeneration: 0,
    projection,
    tornEvidence: [],
    lockFiles: [],
  };
  const refuse = (problem: Omit<Problem, 'severity'>, error?: RxError) => {
    const found: Problem = { ...problem, severity: 'error' };
    problems.push(found);
    const refusal = error ?? errorFromProblem(found);
    if (read.status !== 'unsupported') read.status = refusal.family === 'unsupported' ? 'unsupported' : 'damaged';
    read.refusal ??= refusal;
  };
  let cutWhileRead = false;
  const warn = (problem: Omit<Problem, 'severity'>) => problems.push({ ...problem, severity: 'warning' });
  const note = (problem: Omit<Problem, 'severity'>) => problems.push({ ...problem, severity: 'note' });

  const directory = await readSessionDirectory(dir);
  for (const problem of directory.problems) {
    if (problem.severity === 'error') refuse(problem);
    else warn(problem);
  }
  // Stryker disable next-line ConditionalExpression: an absent manifest set as undefined: every reader, and JSON, sees the same
  if (directory.manifest) read.manifest = directory.manifest;
  // Stryker disable next-line ConditionalExpression: an absent manifest set as undefined: every reader, and JSON, sees the same, for the header
  if (directory.header) read.header = directory.header;
  // Stryker disable next-line BooleanLiteral: a symlinked directory read twice: the same refusal
  if (directory.symlink) return { read, cutWhileRead: false };
  const blocked = directory.blocked;
  const logPath = join(dir, SESSION_FILES.log);
  const log = logFile(logPath);
  if (log.problem) {
    refuse(log.problem);
  } else {
    const logStats = log.stats;
    let caught: RxError | undefined;
    const contentFiles = new Set<string>();
    const content = new ContentStore(contentRootFor(dir, read.manifest?.contentRoot));
    const batchesDigest = new BatchesDigest();
    try {
      // Stryker disable next-line ObjectLiteral: the content store found again from the manifest is the same
      for await (const item of readSessionEventsOn(thread, dir, { content })) {
        if (item.type === 'torn-tail') {
          read.tornTail = item.tail;
          continue;
        }
        const { batch } = item.value;
        if (options.endBefore !== undefined && batch.firstSeq + batch.eventCount > options.endBefore) break;
        read.batches += 1;
        read.durableEnd = batch.end;
        batchesDigest.add(batch.sha256);
        read.lastSequence = batch.firstSeq + batch.eventCount - 1;
        read.writerGeneration = Math.max(read.writerGeneration, batch.writerGeneration);
        read.firstCommitAt ??= batch.createdAt;
        read.lastCommitAt = batch.createdAt;
        options.operations?.add(batch.operationId);
        for (const event of batch.events) {
          read.events.total += 1;
          read.events.byKind[event.kind] = (read.events.byKind[event.kind] ?? 0) + 1;
          if (event.payloadRef) {
            read.payloadRefs += 1;
            for (const file of content.filesOf(event.payloadRef)) contentFiles.add(file);
          }
        }
        projection.applyBatch(item.value);
      }
    } catch (error) {
      // Damage or an unsupported version is the session's verdict; anything else (the file system, no zstd) is not.
      if (!isSessionVerdict(error)) throw fileSystemErrorOf(error);
      caught = error;
      cutWhileRead = error instanceof LogCutWhileReadError;
    }
    read.contentFiles = [...contentFiles];
    read.readDigest = batchesDigest.digest();
    if (options.endBefore !== undefined) return { read, cutWhileRead };
    // Replay stopped at the first payload Reasonix would refuse, which precedes anything the codec stopped at.
    for (const finding of projection.strictness) {
      const error = strictPayloadError(finding, logPath);
      refuse(problemFromError(error), error);
    }
    if (caught) refuse(problemFromError(caught), caught);
    const checkpoint = recoveryCheckpoint(dir, id);
    let taken: Promise<TakenCheckpoint | undefined> | undefined;
    // The checkpoint Reasonix would open the session from, read on to the log's end once, when asked for.
    const takenOnce = () => (taken ??= checkpoint && takenCheckpoint(dir, id, checkpoint, content));
    // A record key the transcript holds twice is met in a checkpoint's transcript as well: none goes on past it.
    if (reasonixRefuses(read.status) && !projection.strictness.some((finding) => finding.wholeTranscript)) {
      const opened = await takenOnce();
      const goesOn = goesOnPast(opened?.cover, logPath, problems);
      if (goesOn && opened && checkpoint) {
        // What this read stopped short of: the torn tail after the anchor, which Reasonix cuts as it opens the session.
        read.tornTail ??= opened.tornTail;
        // Past the damage, Reasonix reads on from the anchor and writes its next operations, which a batch after
        // the anchor, or a cache ahead of the log, may hold already.
        const ahead =
          !opened.openTurnFinalized &&
          (await recoveryCacheAhead(dir, id, checkpoint, opened.lastSequence, opened.openTurn));
        if (opened.openTurnFinalized) refuse(finalizedAgainProblem(opened.openTurn, logPath, opened.lastSequence));
        else if (ahead) refuse(cacheAheadProblem(ahead, opened.lastSequence));
        else read.goesOnFrom = goesOn;
      }
    }
    if (read.tornTail) {
      if (read.status === 'ok') read.status = 'torn-tail';
      warn({
        code: 'RX_TORN_TAIL',
        message: `torn tail: ${read.tornTail.bytes} bytes after the last committed batch (${read.tornTail.reason}); invisible to readers, Reasonix moves them to events.torn-<time>.tail when it next opens the session`,
        data: { file: logPath, offset: read.tornTail.offset },
      });
    }
    if (read.status === 'ok' || read.status === 'torn-tail') {
      const turn = await turnClosedOnOpen(takenOnce, projection.turnLeftOpen);
      if (turn !== '' && projection.turnLeftOpen.finalizedInLog(turn))
        refuse(finalizedAgainProblem(turn, logPath, read.lastSequence));
      const ahead =
        read.refusal === undefined &&
        checkpoint &&
        (await recoveryCacheAhead(dir, id, checkpoint, read.lastSequence, turn));
      if (ahead) refuse(cacheAheadProblem(ahead, read.lastSequence));
      for (const file of queryCacheFiles(dir, id)) {
        if (!waitsForever(file)) continue;
        refuse({
          code: 'RX_QUERY_CACHE_BLOCKED',
          message: `Reasonix's query cache file ${basename(file)} is a FIFO, socket or endless device: Reasonix waits forever reading it when it opens the session, until \`rxstore repair\` clears that cache (it is rebuilt from the log)`,
          data: { file },
        });
      }
      if (checkpoint?.tooLarge !== undefined) {
        warn({
          code: 'RX_TOO_LARGE',
          message: `Reasonix's recovery checkpoint of the session is ${checkpoint.tooLarge} bytes, more than rxstore reads into memory (${MAX_CHECKPOINT_BYTES}): whether Reasonix can open it was not checked`,
          data: { file: checkpoint.path, found: checkpoint.tooLarge, expected: MAX_CHECKPOINT_BYTES },
        });
      }
      const damage = checkpoint && recoveryCacheDamage(checkpoint);
      if (checkpoint && damage) {
        refuse({
          code: 'RX_RECOVERY_CACHE_DAMAGED',
          message: `Reasonix's recovery checkpoint of the session is damaged (${damage}): Reasonix crashes when it opens the session, until \`rxstore repair\` clears that cache (it is rebuilt from the log)`,
          data: { file: checkpoint.path },
        });
      }
    }
    const turn =
      read.status === 'ok' || read.status === 'torn-tail' ? newTurnProblem(projection.newTurn, logPath) : undefined;
    if (turn) {
      problems.push(turn);
      read.status = 'turn-refused';
    }
    // An identity Reasonix cannot replace is refused below, not noted as one it will mint again.
    const noteOnBlocked = (problem: Omit<Problem, 'severity'>) =>
      blocked.some(({ file }) => file === problem.data.file) ? undefined : note(problem);
    if (options.caches ?? true) await checkCaches(dir, id, logPath, logStats.size, noteOnBlocked);
  }

  // Stryker disable next-line ArrayDeclaration: the placeholder name matches neither the torn-evidence pattern nor the writer lock name
  const entries = await readdir(dir).catch((error: unknown): string[] => undefinedIfMissing(error, dir) ?? []);
  // Stryker disable next-line MethodExpression: Node readdir returns names sorted (libuv scandir)
  read.tornEvidence = entries.filter((name) => TORN_EVIDENCE.test(name)).sort();
  const ownership = ownershipLockPath(dirname(dir), id);
  read.lockFiles = [
    ...(entries.includes(SESSION_FILES.writerLock) ? [join(dir, SESSION_FILES.writerLock)] : []),
    ...((await lstat(ownership).catch(undefinedIfMissing)) ? [ownership] : []),
  ];
  const holder = await writerLockHolder(dir);
  if (holder) {
    read.openBy = holder;
    warn({
      code: 'RX_OPEN_IN_REASONIX',
      message: 'open in a running Reasonix: its writer lock is held; the log may grow while you read it',
      data: { file: holder },
    });
  }
  return { read, cutWhileRead };
}

/**
 * The turn Reasonix closes as it opens the session ('' for none): the one it holds open as it reads on from the
 * checkpoint it opens the session from, else the one the log leaves open (`TurnLeftOpen`). A log that leaves none
 * open is taken at its word, its checkpoint not read: the checkpoint's projection is the log's up to the anchor,
 * and only a log changed before it tells them apart.
 */
async function turnClosedOnOpen(
  taken: () => Promise<TakenCheckpoint | undefined> | undefined,
  leftOpen: TurnLeftOpen,
): Promise<string> {
  if (leftOpen.open === '') return '';
  return (await taken())?.openTurn ?? leftOpen.open;
}

/** A log that leaves `turn` open while a batch of it is under that turn's `turn-finalize` operation, said. */
function finalizedAgainProblem(turn: string, logPath: string, sequence: number): Omit<Problem, 'severity'> {
  return {
    code: 'RX_DAMAGED_STORE',
    message: `session operation id conflicts with an earlier batch: "turn-finalize:${turn}": the log leaves that turn open (no turn/end after its turn/start), and Reasonix, closing it as it opens the session, writes that operation again, which a batch of the log already holds`,
    data: { file: logPath, sequence },
  };
}

/** What a recovery cache ahead of the log (`recoveryCacheAhead`) is said as, at the log's last sequence. */
function cacheAheadProblem(ahead: RecoveryCacheAhead, sequence: number): Omit<Problem, 'severity'> {
  return {
    code: 'RX_RECOVERY_CACHE_AHEAD',
    message: `Reasonix's recovery cache of the session holds ${ahead.holds}: the log was cut or an older copy put back, and Reasonix refuses to resume it ("session operation id conflicts with an earlier batch") until \`rxstore repair\` clears that cache`,
    data: { file: ahead.cache, sequence },
  };
}

/**
 * Where the recovery checkpoint Reasonix opens the session from (`cover`) takes it past every problem it would
 * otherwise refuse it for: each one in the log before the checkpoint's anchor. Undefined when there is none, or
 * a problem lies elsewhere.
 */
function goesOnPast(
  cover: CheckpointCover | undefined,
  logPath: string,
  problems: readonly Problem[],
): GoesOnPastDamage | undefined {
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (!cover || !errors.every((problem) => beforeAnchor(problem.data, logPath, cover))) return undefined;
  const first = errors[0]?.data;
  return { ...cover, damagedAt: first?.file === logPath && first.offset !== undefined ? first.offset : null };
}

/**
 * Caches are never trusted over the log, and Reasonix rebuilds a stale one by itself (a copied
 * log has a new inode and mtime, so every copy has one): a note, not a warning (docs/format.md §9.3, §9.4).
 */
async function checkCaches(
  dir: string,
  id: string,
  logPath: string,
  logSize: number,
  note: (problem: Omit<Problem, 'severity'>) => void,
): Promise<void> {
  const identityPath = join(dir, SESSION_FILES.identity);
  // Caches Reasonix rebuilds: one this user may not read is one Reasonix, run by this user, replaces.
  const identity = await readStorageIdentity(dir);
  if (identity.state === 'unreadable')
    note({
      code: 'RX_IDENTITY_STALE',
      message: `storage identity cannot be read (${identity.error.message}); Reasonix will mint a new one`,
      data: { file: identityPath },
    });
  else if (identity.state === 'invalid')
    note({
      code: 'RX_IDENTITY_STALE',
      message: `storage identity is not valid (${identity.reason}); Reasonix will mint a new one`,
      data: { file: identityPath },
    });
  else if (identity.state === 'ok') {
    if (identity.value.sessionId !== id || !(await identityPrefixMatches(identity.value, logPath))) {
      note({
        code: 'RX_IDENTITY_STALE',
        message: 'storage identity does not match this log; Reasonix will mint a new one and drop its caches',
        data: { file: identityPath },
      });
    }
  }
  const indexPath = join(dir, SESSION_FILES.offsetIndex);
  const index = await readJsonFile(indexPath, OffsetIndexSchema);
  if (index.state === 'unreadable')
    note({
      code: 'RX_OFFSET_INDEX_STALE',
      message: `offset index cannot be read (${index.error.message}); it is a cache and will be rebuilt`,
      data: { file: indexPath },
    });
  else if (index.state === 'invalid')
    note({
      code: 'RX_OFFSET_INDEX_STALE',
      message: `offset index is not valid (${index.reason}); it is a cache and will be rebuilt`,
      data: { file: indexPath },
    });
  else if (index.state === 'ok') {
    const actual = await logIdentity(logPath);
    // The mtime in nanoseconds does not fit a double: compare the digits as written.
    const writtenModTime = /"logModTimeNs":(-?\d+)/.exec(index.text)?.[1];
    if (
      index.value.logSize !== logSize ||
      writtenModTime !== String(actual.modTimeNs) ||
      index.value.logIdentity !== actual.identity
    ) {
      note({
        code: 'RX_OFFSET_INDEX_STALE',
        message: 'offset index is stale (the log changed since it was written); it is a cache and will be rebuilt',
        data: { file: indexPath },
      });
    }
  }
}

/**
 * The workspace a session belongs to, from what the session itself says: `header.json` `cwd`
 * (or a transcript's `.jsonl.meta` `workspace_root`), else the `Current workspace: "<root>"` line
 * of the latest host session-context message.
 */
export function workspaceOf(
  read: Pick<SessionRead, 'header' | 'projection' | 'declaredWorkspace'>,
): string | undefined {
  if (read.header?.cwd) return read.header.cwd;
  if (read.declaredWorkspace) return read.declaredWorkspace;
  return read.projection.workspace;
}
