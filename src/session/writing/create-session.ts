import { randomBytes } from 'node:crypto';
import { lstat, open, rename, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { CommittedBatch } from '../../codec/batch.js';
import { ContentStore, CONTENT_DIR, discardPublished } from '../../codec/content-store.js';
import { encodeBatch, type BatchToWrite } from '../../codec/encode-batch.js';
import { OperationLedger } from '../../codec/operations/operation-ledger.js';
import {
  FileSystemError,
  fileSystemErrorOf,
  InvalidInputError,
  isSystemError,
  onFileSystem,
  SessionExistsError,
  undefinedIfMissing,
} from '../../errors/index.js';
import { goJsonIndented, goTime } from '../../codec/go-json/go-json.js';
import { V4_CODEC, V4_SCHEMA_VERSION } from '../../codec/records.js';
import {
  DIR_MODE,
  FILE_MODE,
  fsyncDir,
  writeFileAtomic,
  writeThroughTemp,
  type WriteBytes,
} from '../../fs/atomic-write.js';
import { withStoreLock } from '../../fs/store-lock.js';
import { expectSize, writeAll } from '../../fs/write-all.js';
import { WRITE_STORAGE_REVISION, type Manifest } from '../reading/manifest.js';
import { Projection } from '../replay/projection.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { validateBatch, validateBatches, validateNewTurn, type WrittenState } from './validate-batches.js';
import { failPoint } from '../../fs/fail-point.js';
import { makeStagingFolder, removeAbandonedStagingFolders } from '../../fs/staging-folders.js';
import { makeFolders } from '../../fs/make-folders.js';

/** A session to create: the store it is published into, its id and time, where it came from, its first batches. */
export interface NewSession {
  /** The sessions-v4 (or desktop by-id) directory the session is published into. */
  storeDir: string;
  /** Defaults to 32 random lower-case hex digits, as Reasonix mints them. */
  sessionId?: string;
  createdAt?: Date | string;
  /** For migrations and salvage: what the session was made from (docs/format.md §9.1). */
  source?: Manifest['source'];
  inheritedEventCount?: number;
  /**
   * The batches, in order. An async iterable is written as it is made, one batch in memory at a
   * time (a migration of a transcript of any length): checked as each comes, and the whole refused
   * before it is published.
   */
  batches: readonly BatchToWrite[] | AsyncIterable<BatchToWrite>;
  /**
   * Further files of the session directory (e.g. `legacy/` copies), by relative path: their bytes,
   * or a `write` that gives them a piece at a time (a copy streamed from its source).
   */
  files?: ({ path: string; bytes: Uint8Array } | { path: string; write: (write: WriteBytes) => Promise<void> })[];
  /**
   * Refuse batches Reasonix 1.38.11 would refuse the session for (default true; see
   * `validateBatches`). Off only for tools and tests that write such sessions on purpose.
   */
  validate?: boolean;
  /**
   * Return each batch as committed (`CreatedSession.batches`; default true). A writer of a long session
   * that reads it back from disk anyway (a migration, a salvage) says false: the batches are then not
   * kept, and memory does not grow with the session's events.
   */
  keepBatches?: boolean;
}

/** The session `createSession` wrote. */
export interface CreatedSession {
  dir: string;
  id: string;
  /**
   * Each batch as committed. Of batches given as an async iterable (written as they are made), the
   * events are kept without their payloads, so that memory does not grow with the session: a
   * payload is read back from the session (`readSession`, `events()`). None with `keepBatches: false`.
   */
  batches: CommittedBatch[];
}

/** A session id is one file name (docs/format.md §2): its staging name is short whatever the id (`.tmp-rxstore-<12 hex>`). */
const MAX_ID_BYTES = 255;

/** The writer generation of a freshly created session: its creator's first open (docs/format.md §5.4). */
const CREATOR_GENERATION = 1;

/**
 * Creates a session as Reasonix creates one (docs/format.md §9.7, §14): the whole directory is built under
 * a staging name in the store, made durable, and published with one rename — under rxstore's
 * store lock, and never over an existing directory. A reader sees no session or the whole
 * session, never a part; a writer killed at any point leaves at most a hidden staging directory, which
 * the next session created in the store removes (its lock, beside it, can then be taken).
 * Batches Reasonix would refuse the session for are refused before anything is written.
 */
export async function createSession(spec: NewSession): Promise<CreatedSession> {
  const id = spec.sessionId ?? randomBytes(16).toString('hex');
  if (
    !/^[^./\\<>:"|?*\x00-\x1f][^/\\<>:"|?*\x00-\x1f]*$/.test(id) ||
    id.endsWith('.') ||
    Buffer.byteLength(id) > MAX_ID_BYTES
  ) {
    throw new InvalidInputError(`${JSON.stringify(id)} is not a valid session id`);
  }
  const validate = spec.validate ?? true;
  const written: WrittenState = {
    sessionId: id,
    projection: new Projection({ keep: 'index', sessionId: id }),
    operations: new OperationLedger(),
    nextSequence: 1,
  };
  const atHand = Array.isArray(spec.batches) ? (spec.batches as readonly BatchToWrite[]) : undefined;
  // Batches at hand are checked before anything is written; batches made as they go, each as it comes.
  if (validate && atHand) validateBatches(atHand, written);
  const dir = join(spec.storeDir, id);
  const exists = async () => (await lstat(dir).catch(undefinedIfMissing)) !== undefined;
  if (await exists()) throw new SessionExistsError(`session already exists: ${dir}`, { file: dir });
  makeFolders(spec.storeDir, DIR_MODE);
  // What writers killed before they published left in the store: each folder whose writer is gone.
  await removeAbandonedStagingFolders(spec.storeDir);
  // Errors name the session it was to be: the staging name is never one to show.
  const stagingFolder = await makeStagingFolder(spec.storeDir).catch((error: unknown) => {
    throw isSystemError(error) ? new FileSystemError(error, dir) : error;
  });
  const staging = stagingFolder.path;
  const content = new ContentStore(join(spec.storeDir, CONTENT_DIR));
  let published = false;
  try {
    failPoint('create.staging-made');
    const manifest = {
      schemaVersion: V4_SCHEMA_VERSION,
      codec: V4_CODEC,
      storageRevision: WRITE_STORAGE_REVISION,
      contentRoot: `../${CONTENT_DIR}`,
      sessionId: id,
      createdAt: goTime(spec.createdAt ?? new Date()),
      writerGeneration: CREATOR_GENERATION,
      ...(spec.inheritedEventCount ? { inheritedEventCount: spec.inheritedEventCount } : {}),
      ...(spec.source ? { source: spec.source } : {}),
    };
    // Errors name the files the session will have: the staging name is never one to show.
    await writeFileAtomic(join(staging, SESSION_FILES.manifest), goJsonIndented(manifest), {
      shown: join(dir, SESSION_FILES.manifest),
    });
    for (const file of spec.files ?? []) {
      makeFolders(dirname(join(staging, file.path)), DIR_MODE);
      const write = 'write' in file ? file.write : (bytes: WriteBytes) => bytes(file.bytes);
      await writeThroughTemp(join(staging, file.path), write, { shown: join(dir, file.path) });
    }
    const logPath = join(dir, SESSION_FILES.log);
    const log = await onFileSystem(open(join(staging, SESSION_FILES.log), 'wx', FILE_MODE), logPath);
    const batches: CommittedBatch[] = [];
    let count = 0;
    try {
      let firstSeq = 1;
      let offset = 0;
      let last: BatchToWrite | undefined;
      for await (const batch of spec.batches) {
        if (validate && !atHand) validateBatch(batch, count, firstSeq, written);
        last = batch;
        const encoded = await encodeBatch(batch, {
          sessionId: id,
          writerGeneration: CREATOR_GENERATION,
          firstSeq,
          offset,
          content,
        });
        await writeAll(log, encoded.bytes, logPath, 'write.create-log');
        failPoint('create.batch-written');
        count += 1;
        if (spec.keepBatches !== false) batches.push(atHand ? encoded.batch : withoutPayloads(encoded.batch));
        firstSeq += encoded.batch.eventCount;
        offset = encoded.batch.end;
      }
      if (validate && !atHand) validateNewTurn(written, count, last, firstSeq);
      await onFileSystem(log.sync(), logPath);
      failPoint('create.log-synced');
      // Published only when the log on disk is every byte written: a cut log would pass for a shorter session.
      await expectSize(log, offset, logPath);
    } finally {
      await log.close();
    }
    await fsyncDir(staging);
    await withStoreLock(spec.storeDir, async (compromised) => {
      if (await exists()) throw new SessionExistsError(`session already exists: ${dir}`, { file: dir });
      compromised.throwIfAborted();
      failPoint('create.before-publish');
      await rename(staging, dir);
      published = true;
      failPoint('create.published');
      await fsyncDir(spec.storeDir);
    });
    return { dir, id, batches };
  } catch (error) {
    // Nothing of a run that failed before it published is left: its staging folder, and the content
    // objects it published, which no session refers to.
    await rm(staging, { recursive: true, force: true });
    if (!published) await discardPublished(content);
    throw shownAsPublished(error, staging, dir);
  } finally {
    // Once the folder is published or removed: its lock file goes, and with it the lock.
    await stagingFolder.release();
  }
}

/** A committed batch kept after its bytes are written, its events without the payloads they carried. */
function withoutPayloads(batch: CommittedBatch): CommittedBatch {
  return { ...batch, events: batch.events.map(({ payload: _payload, ...event }) => event) };
}

/** A system error at the staging folder names the session it was to be (`.tmp-rxstore-…` is no name a person knows). */
function shownAsPublished(error: unknown, staging: string, dir: string): unknown {
  const system = error instanceof FileSystemError ? error.cause : error;
  if (!isSystemError(system)) return error;
  const file = error instanceof FileSystemError ? error.data.file : system.path;
  if (file === undefined || (file !== staging && !file.startsWith(`${staging}${sep}`))) return fileSystemErrorOf(error);
  return new FileSystemError(system, `${dir}${file.slice(staging.length)}`);
}
