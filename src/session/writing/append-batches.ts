import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommittedBatch } from '../../codec/batch.js';
import { encodeBatch, type BatchToWrite } from '../../codec/encode-batch.js';
import { DamagedStoreError, InvalidInputError, onFileSystem } from '../../errors/index.js';
import { goJsonIndented } from '../../codec/go-json/go-json.js';
import { OperationLedger } from '../../codec/operations/operation-ledger.js';
import { readLogBatches } from '../../codec/read-log.js';
import { writeFileAtomic, writeNewFile } from '../../fs/atomic-write.js';
import { expectSize, writeAll } from '../../fs/write-all.js';
import { readManifest } from '../reading/manifest.js';
import { readableOrThrow } from '../reading/read-json-file.js';
import { sessionContentStore } from '../reading/session-content.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { acquireWriterLocks } from '../reading/writer-locks.js';
import { Projection } from '../replay/projection.js';
import { resolveBatch } from '../reading/resolve-batch.js';
import { validateBatches } from './validate-batches.js';
import { failPoint } from '../../fs/fail-point.js';

/**
 * Appends whole batches to an existing session as an external writer must (docs/format.md §9.8): both
 * writer locks held (refusing at once if Reasonix has the session open), the log verified to its
 * end, a new writer generation recorded in the manifest, and each append written to a staging
 * file, fsynced, then copied onto the log and fsynced. A torn tail is refused: repair it first.
 * Batches Reasonix would refuse the session for are refused before anything is written.
 */
export interface AppendOptions {
  /**
   * Refuse batches Reasonix 1.38.11 would refuse the session for (default true; see
   * `validateBatches`). Off only for tools and tests that write such sessions on purpose.
   */
  validate?: boolean;
}

/** Appends batches to a session under Reasonix's locks, refusing what Reasonix would refuse to open; the log grows only by whole, durable batches. */
export async function appendBatches(
  sessionDir: string,
  batches: BatchToWrite[],
  options: AppendOptions = {},
): Promise<CommittedBatch[]> {
  const validate = options.validate ?? true;
  const locks = await acquireWriterLocks(sessionDir);
  try {
    const manifestPath = join(sessionDir, SESSION_FILES.manifest);
    const manifest = readableOrThrow(await readManifest(manifestPath));
    if (manifest.state !== 'ok')
      throw new DamagedStoreError(`cannot append: manifest is ${manifest.state}`, { file: manifestPath });
    const logPath = join(sessionDir, SESSION_FILES.log);

    let nextSequence = 1;
    let end = 0;
    const operations = new OperationLedger();
    // Validation replays the log's payloads (the new events are judged after them); otherwise the batches are enough.
    // Stryker disable next-line ObjectLiteral,StringLiteral: keep decides only what the projection retains (memory), never a verdict
    const projection = new Projection({ keep: 'index', sessionId: manifest.value.sessionId });
    const existingContent = validate ? await sessionContentStore(sessionDir) : undefined;
    for await (const item of readLogBatches(logPath)) {
      if (item.type === 'torn-tail') {
        throw new DamagedStoreError(
          `cannot append after a torn tail of ${item.tail.bytes} bytes: run rxstore repair first`,
          { file: logPath, offset: item.tail.offset },
        );
      }
      const { batch } = item;
      nextSequence = batch.firstSeq + batch.eventCount;
      end = batch.end;
      operations.admit(batch.operationId, batch.operationHash);
      if (existingContent) {
        projection.applyBatch(await resolveBatch(batch, existingContent, logPath));
      }
    }
    if (validate)
      validateBatches(batches, {
        sessionId: manifest.value.sessionId,
        projection,
        operations: new OperationLedger(operations),
        nextSequence,
      });

    const durableEnd = end;
    const writerGeneration = (manifest.value.writerGeneration ?? 0) + 1;
    await writeFileAtomic(manifestPath, goJsonIndented({ ...manifest.value, writerGeneration }));

    const content = await sessionContentStore(sessionDir);
    const encoded: Buffer[] = [];
    const written: CommittedBatch[] = [];
    for (const batch of batches) {
      const result = await encodeBatch(batch, {
        sessionId: manifest.value.sessionId,
        writerGeneration,
        firstSeq: nextSequence,
        offset: end,
        content,
      });
      if (operations.admit(result.batch.operationId, result.batch.operationHash) !== undefined) {
        throw new InvalidInputError(
          `operation ${JSON.stringify(batch.operationId)} is already in the log with other events`,
          { file: logPath },
        );
      }
      encoded.push(result.bytes);
      written.push(result.batch);
      nextSequence += result.batch.eventCount;
      end = result.batch.end;
    }

    const bytes = Buffer.concat(encoded);
    const staged = join(sessionDir, `.append-${randomBytes(6).toString('hex')}.staged`);
    await writeNewFile(staged, bytes, logPath);
    const log = await onFileSystem(open(logPath, 'a'), logPath);
    try {
      await writeAll(log, bytes, logPath, 'write.append-log');
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('append.log-written');
      await onFileSystem(log.sync(), logPath);
      // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
      failPoint('append.log-synced');
      await expectSize(log, durableEnd + bytes.length, logPath);
    } catch (error) {
      // A part of an append is a torn tail: the log goes back to where it ended, as it was.
      await log
        .truncate(durableEnd)
        .then(() => log.sync())
        .catch(() => undefined);
      await rm(staged, { force: true });
      throw error;
    } finally {
      await log.close();
    }
    await rm(staged);
    // Stryker disable next-line StringLiteral: the name of a fail point: only the crash tests, which run the writer in a child process, stop at one
    failPoint('append.staged-removed');
    return written;
  } finally {
    await locks.release();
  }
}
