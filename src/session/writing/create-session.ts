import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommittedBatch } from '../../codec/batch.js';
import { ContentStore, CONTENT_DIR } from '../../codec/content-store.js';
import { encodeBatch, type BatchToWrite } from '../../codec/encode-batch.js';
import { OperationLedger } from '../../codec/operations/operation-ledger.js';
import { InvalidInputError, onFileSystem, SessionExistsError, undefinedIfMissing } from '../../errors/index.js';
import { goJsonIndented, goTime } from '../../codec/go-json/go-json.js';
import { V4_CODEC, V4_SCHEMA_VERSION } from '../../codec/records.js';
import { DIR_MODE, FILE_MODE, fsyncDir, writeFileAtomic } from '../../fs/atomic-write.js';
import { withStoreLock } from '../../fs/store-lock.js';
import { expectSize, writeAll } from '../../fs/write-all.js';
import { WRITE_STORAGE_REVISION, type Manifest } from '../reading/manifest.js';
import { Projection } from '../replay/projection.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { validateBatches } from './validate-batches.js';
import { failPoint } from '../../fs/fail-point.js';

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
  batches: BatchToWrite[];
  /** Further files of the session directory (e.g. `legacy/` copies), by relative path. */
  files?: { path: string; bytes: Uint8Array }[];
  /**
   * Refuse batches Reasonix 1.38.11 would refuse the session for (default true; see
   * `validateBatches`). Off only for tools and tests that write such sessions on purpose.
   */
  validate?: boolean;
}

/** The session `createSession` wrote. */
export interface CreatedSession {
  dir: string;
  id: string;
  batches: CommittedBatch[];
}

/** The staging name `.<id>.tmp-rxstore-<12 hex digits>` must fit in a file name of 255 bytes. */
const MAX_ID_BYTES = 255 - '..tmp-rxstore-'.length - 12;

/** The writer generation of a freshly created session: its creator's first open (docs/format.md §5.4). */
const CREATOR_GENERATION = 1;

/**
 * Creates a session as Reasonix creates one (docs/format.md §9.7, §14): the whole directory is built under
 * a staging name in the store, made durable, and published with one rename — under rxstore's
 * store lock, and never over an existing directory. A reader sees no session or the whole
 * session, never a part; a writer killed at any point leaves at most a hidden staging directory.
 * Batches Reasonix would refuse the session for are refused before anything is written.
 */
export async function createSession(spec: NewSession): Promise<CreatedSession> {
  const id = spec.sessionId ?? randomBytes(16).toString('hex');
  if (!/^[^./\\<>:"|?*\x00-\x1f][^/\\<>:"|?*\x00-\x1f]*$/.test(id) || id.endsWith('.') || Buffer.byteLength(id) > MAX_ID_BYTES) {
    throw new InvalidInputError(`${JSON.stringify(id)} is not a valid session id`);
  }
  if (spec.validate ?? true) {
    validateBatches(spec.batches, { sessionId: id, projection: new Projection({ keep: 'index' }), operations: new OperationLedger(), nextSequence: 1 });
  }
  const dir = join(spec.storeDir, id);
  const exists = async () => (await lstat(dir).catch(undefinedIfMissing)) !== undefined;
  if (await exists()) throw new SessionExistsError(`session already exists: ${dir}`, { file: dir });
  await mkdir(spec.storeDir, { recursive: true, mode: DIR_MODE });
  const staging = join(spec.storeDir, `.${id}.tmp-rxstore-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { mode: DIR_MODE });
  failPoint('create.staging-made');
  try {
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
    await writeFileAtomic(join(staging, SESSION_FILES.manifest), goJsonIndented(manifest), { shown: join(dir, SESSION_FILES.manifest) });
    for (const file of spec.files ?? []) {
      await mkdir(dirname(join(staging, file.path)), { recursive: true, mode: DIR_MODE });
      await writeFileAtomic(join(staging, file.path), file.bytes, { shown: join(dir, file.path) });
    }
    const content = new ContentStore(join(spec.storeDir, CONTENT_DIR));
    const logPath = join(dir, SESSION_FILES.log);
    const log = await onFileSystem(open(join(staging, SESSION_FILES.log), 'wx', FILE_MODE), logPath);
    const batches: CommittedBatch[] = [];
    try {
      let firstSeq = 1;
      let offset = 0;
      for (const batch of spec.batches) {
        const encoded = await encodeBatch(batch, { sessionId: id, writerGeneration: CREATOR_GENERATION, firstSeq, offset, content });
        await writeAll(log, encoded.bytes, logPath, 'write.create-log');
        failPoint('create.batch-written');
        batches.push(encoded.batch);
        firstSeq += encoded.batch.eventCount;
        offset = encoded.batch.end;
      }
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
      failPoint('create.published');
      await fsyncDir(spec.storeDir);
    });
    return { dir, id, batches };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
