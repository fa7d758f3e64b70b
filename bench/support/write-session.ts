import { mkdir, open, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContentStore, CONTENT_DIR } from '../../src/codec/content-store.js';
import { encodeBatch } from '../../src/codec/encode-batch.js';
import { parseFrameHeader } from '../../src/codec/frame.js';
import { goJsonIndented, goTime } from '../../src/codec/go-json/go-json.js';
import { V4_CODEC, V4_SCHEMA_VERSION } from '../../src/codec/records.js';
import { WRITE_STORAGE_REVISION } from '../../src/session/reading/manifest.js';
import { SESSION_FILES } from '../../src/session/reading/session-files.js';
import { TurnPlan } from './turn-plan.js';

export interface SessionSpec {
  /** Stop after the turn that takes the log's raw (decompressed) record bytes to at least this. */
  rawBytes: number;
  seed: number;
  /** The workspace the session belongs to; its path appears in every session-context message. */
  workspace: string;
}

export interface WrittenSession {
  dir: string;
  id: string;
  /** Sum of the records' raw sizes: what zstd decompresses and the digests cover. */
  rawBytes: number;
  logBytes: number;
  frames: number;
  batches: number;
  events: number;
  payloadRefs: number;
  /** Where the last batch begins and its first sequence: a cursor that has read all but one batch. */
  lastBatch: { offset: number; firstSeq: number };
}

/**
 * Writes a realistic session into `storeDir`, batch by batch, with rxstore's own batch encoder.
 * `createSession` takes every batch at once and returns them all (payloads included), which for
 * 100 MB would hold the whole session in memory; this streams instead and lays the directory out
 * as `createSession` does (manifest, log, the store's shared `.content-v1`), without its staging
 * rename and lock, which a benchmark input in a private folder does not need.
 */
export async function writeSession(storeDir: string, sessionId: string, spec: SessionSpec): Promise<WrittenSession> {
  const dir = join(storeDir, sessionId);
  await mkdir(dir, { recursive: true });
  const manifest = {
    schemaVersion: V4_SCHEMA_VERSION,
    codec: V4_CODEC,
    storageRevision: WRITE_STORAGE_REVISION,
    contentRoot: `../${CONTENT_DIR}`,
    sessionId,
    createdAt: goTime(new Date(Date.UTC(2026, 10, 1, 9, 0, 0))),
    writerGeneration: 1,
  };
  await writeFile(join(dir, SESSION_FILES.manifest), goJsonIndented(manifest));
  const content = new ContentStore(join(storeDir, CONTENT_DIR));
  const plan = new TurnPlan(spec.seed, spec.workspace);
  const written: WrittenSession = {
    dir,
    id: sessionId,
    rawBytes: 0,
    logBytes: 0,
    frames: 0,
    batches: 0,
    events: 0,
    payloadRefs: 0,
    lastBatch: { offset: 0, firstSeq: 1 },
  };
  const partial = join(dir, `${SESSION_FILES.log}.partial`);
  const log = await open(partial, 'w');
  try {
    const append = async (batch: Parameters<typeof encodeBatch>[0]) => {
      const firstSeq = written.events + 1;
      const encoded = await encodeBatch(batch, {
        sessionId,
        writerGeneration: 1,
        firstSeq,
        offset: written.logBytes,
        content,
      });
      await log.write(encoded.bytes);
      written.lastBatch = { offset: written.logBytes, firstSeq };
      written.logBytes += encoded.bytes.length;
      written.batches += 1;
      written.events += encoded.batch.eventCount;
      written.payloadRefs += encoded.batch.events.filter((event) => event.payloadRef).length;
      for (let at = 0; at < encoded.bytes.length; ) {
        const header = parseFrameHeader(encoded.bytes, at);
        written.rawBytes += header.rawBytes;
        written.frames += 1;
        at += header.frameBytes;
      }
    };
    await append(plan.sessionCreate());
    while (written.rawBytes < spec.rawBytes) {
      for (const batch of plan.nextTurn()) await append(batch);
    }
  } finally {
    await log.close();
  }
  await rename(partial, join(dir, SESSION_FILES.log));
  return written;
}
