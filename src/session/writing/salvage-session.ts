import { createHash } from 'node:crypto';
import { z } from 'zod';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ContentStore } from '../../codec/content-store.js';
import type { BatchToWrite, EventToWrite } from '../../codec/encode-batch.js';
import {
  BatchChangedError,
  DamagedStoreError,
  FileSystemError,
  fileSystemErrorOf,
  isSessionVerdict,
  LogCutWhileReadError,
  NotRegularFileError,
  onFileSystem,
  type Problem,
  problemFromError,
  undefinedIfMissing,
} from '../../errors/index.js';
import { PhysicalEventSchema, V4_CODEC } from '../../codec/records.js';
import { salvageFrames } from '../../codec/salvage-frames.js';
import { createSession } from './create-session.js';
import { repairForNewTurn, type TurnRepairChange } from './turn-repair.js';
import { Projection } from '../replay/projection.js';
import { BatchesDigest } from '../verdict/batches-digest.js';
import { checkFolder, checkOutside } from '../../fs/path-kind.js';
import { refuseSessionFolder } from '../reading/not-a-session-folder.js';
import { MessageSchema, type Message } from '../replay/message.js';
import { decodePayload } from '../replay/payloads.js';
import { readSessionEvents, type ResolvedBatch } from '../reading/read-events.js';
import { gateFacts, transcriptGate } from '../replay/transcript-gate.js';
import { sessionContentStore } from '../reading/session-content.js';
import { readManifest } from '../reading/manifest.js';
import { readableOrThrow } from '../reading/read-json-file.js';
import { SESSION_FILES, sessionReadPaths } from '../reading/session-files.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';
import { jsonText } from '../../codec/go-json/json-text.js';

/** What `salvageSession` kept from a damaged session, and where the new session is. */
export interface SalvageReport {
  source: string;
  /** `already-salvaged`: a session salvaged from these very bytes is there already; nothing was written. */
  action: 'salvaged' | 'would-salvage' | 'already-salvaged';
  newId: string;
  newDir: string;
  /** The first problem that stopped the verified read; null when the log verified to its end. */
  damage: Problem | null;
  batchesKept: number;
  eventsKept: number;
  /** Messages read from frames past the last verified batch, in the person's view. */
  recoveredMessages: number;
  /**
   * Messages read past it and left out, by why: Reasonix's own context messages (`origin: host`, which it
   * writes again) and local-only ones are not the conversation; one Reasonix would refuse would make it
   * refuse the whole new session.
   */
  leftOutMessages: { host: number; localOnly: number; refused: number };
  /**
   * What the model is sent was changed so that Reasonix takes a new turn in the new session (its
   * transcript gate refused the original's): Reasonix's refusal and every change, with what was
   * there verbatim; null when none was needed. The transcript keeps the original messages.
   */
  turnRepair: { refusal: string; changes: TurnRepairChange[] } | null;
}

/**
 * Recovers what can be recovered from a damaged session into a new one, and leaves the original
 * untouched: the longest verified prefix of batches (event ids, kinds and payload bytes as they
 * were), then the person's view of the messages that still decode past the damage, with a
 * `diagnostic` event saying where they came from. The new session's manifest names the original.
 */
export async function salvageSession(
  dir: string,
  options: { to?: string; dryRun?: boolean } = {},
): Promise<SalvageReport> {
  const source = resolve(dir);
  if (options.to !== undefined) {
    // A store that is there (a typo makes no new store nobody looks in), and not inside the session salvaged.
    await checkFolder(resolve(options.to), options.to, { mustExist: true });
    await checkOutside(resolve(options.to), options.to, 'folder', sessionReadPaths(source));
    await refuseSessionFolder(resolve(options.to), options.to);
  }
  const logPath = join(source, SESSION_FILES.log);
  let [batchesKept, eventsKept, verifiedEnd] = [0, 0, 0];
  const verified = new BatchesDigest();
  const known = new Set<string>();
  let damage: Problem | null = null;
  // Whether Reasonix takes a new turn after the kept batches. Messages are kept as the index only, and
  // the kept batches are read again as they are written: memory does not grow with the session.
  const projection = new Projection({ keep: 'index' });
  try {
    for await (const item of readSessionEvents(source)) {
      if (item.type !== 'batch') continue;
      const { batch, payloads } = item.value;
      projection.applyBatch(item.value);
      for (const id of payloads.flatMap((payload) => messageIdsOf(payload))) known.add(id);
      verified.add(batch.sha256);
      batchesKept += 1;
      eventsKept += batch.events.length;
      verifiedEnd = batch.end;
    }
  } catch (error) {
    // Damage (or a version it does not know) is where salvage stops trusting the log; anything else goes on
    // up, a log cut or written over while it was read too: that is not damage at the place it was seen.
    if (!isSessionVerdict(error) || error instanceof LogCutWhileReadError || error instanceof BatchChangedError)
      throw error;
    damage = problemFromError(error);
  }

  const log = await openLog(logPath);
  let found;
  try {
    found = await messagesPast(log.chunks(), verifiedEnd, await sessionContentStore(source), known);
  } finally {
    await log.close();
  }
  const { found: recovered, leftOut } = found;
  const verifiedDigest = verified.digest();
  const batches: BatchToWrite[] = [];
  if (recovered.length > 0 || damage) {
    batches.push({
      operationId: `salvage:${basename(source)}:recovered`,
      events: [
        {
          kind: 'diagnostic',
          payload: {
            salvage: {
              source,
              damage: damage?.message ?? null,
              offset: damage?.data.offset ?? null,
              verifiedEnd,
              recoveredMessages: recovered.length,
            },
          },
        },
        ...recovered.map((message) => ({ kind: 'message/complete', payload: { message } })),
      ],
    });
  }
  // Recovered messages are sent after the kept ones; a repair replaces the whole list the model is sent,
  // so only a repair reads that list whole (one record of the new session holds it).
  const sent = recovered.filter((message) => !message.local_only);
  const refused =
    projection.strictness.length === 0 &&
    !transcriptGate([...projection.gateMessages(), ...sent.map((message) => gateFacts(message) ?? { role: '' })])
      .accepted;
  const repair = refused
    ? repairForNewTurn([...(await modelMessagesThrough(source, verifiedEnd, verifiedDigest)), ...sent])
    : undefined;
  if (repair) {
    batches.push({
      operationId: `salvage:${basename(source)}:new-turn`,
      events: [
        {
          kind: 'diagnostic',
          payload: { salvage: { source, turnRepair: { refusal: repair.refusal, changes: repair.changes } } },
        },
        {
          kind: 'model/context-replace',
          payload: {
            messages: repair.messages,
            reason: `rxstore salvage: Reasonix refused a new turn (${repair.refusal})`,
          },
        },
      ],
    });
  }
  const storeDir = resolve(options.to ?? dirname(source));
  const logDigest = log.digest();
  // Named by what it salvages: a dry run names the session the real run writes, and a second run
  // of the same damaged log finds its salvage already there instead of writing another.
  const newId = createHash('sha256')
    .update(`rxstore-salvage\0${basename(source)}\0${logDigest}`)
    .digest('hex')
    .slice(0, 32);
  const report: SalvageReport = {
    source,
    action: options.dryRun ? 'would-salvage' : 'salvaged',
    newId,
    newDir: join(storeDir, newId),
    damage,
    batchesKept,
    eventsKept,
    recoveredMessages: recovered.length,
    leftOutMessages: leftOut,
    turnRepair: repair ? { refusal: repair.refusal, changes: repair.changes } : null,
  };
  if (options.dryRun) return report;
  // Salvaging the same bytes again finds its salvage there: the run is done, as a re-run of migrate is.
  const there = readableOrThrow(await readManifest(join(report.newDir, SESSION_FILES.manifest)));
  if (there.state === 'ok' && there.value.source?.sha256 === logDigest && there.value.source.path === source)
    return { ...report, action: 'already-salvaged' };
  await createSession({
    storeDir,
    sessionId: newId,
    source: { path: source, size: log.size(), sha256: logDigest, version: V4_CODEC },
    inheritedEventCount: report.eventsKept,
    batches: (async function* () {
      yield* keptBatches(source, verifiedEnd, verifiedDigest);
      yield* batches;
    })(),
  });
  return report;
}

/** The verified batches up to `end`, read again and written as they come (event ids, kinds and payload bytes as they were). */
async function* keptBatches(source: string, end: number, digest: string): AsyncGenerator<BatchToWrite> {
  for await (const { batch, payloadBytes } of verifiedAgain(source, end, digest)) {
    yield {
      operationId: batch.operationId,
      ...(batch.turnId ? { turnId: batch.turnId } : {}),
      createdAt: batch.createdAt,
      events: batch.events.map(
        (event, index): EventToWrite => ({
          id: event.id,
          kind: event.kind,
          optional: event.optional,
          required: event.required,
          ...(payloadBytes[index] ? { payloadJson: payloadBytes[index] } : {}),
        }),
      ),
    };
  }
}

/** What the model is sent after the verified batches up to `end`, each message whole, read again. */
async function modelMessagesThrough(source: string, end: number, digest: string): Promise<readonly Message[]> {
  const projection = new Projection({ keep: 'index', keepModel: true });
  for await (const batch of verifiedAgain(source, end, digest)) projection.applyBatch(batch);
  return projection.modelMessages;
}

/**
 * The log's batches up to `end`, read again. A log whose batches are not the ones the first read
 * verified (`digest`: written over between the reads) ends in an error, and nothing is published.
 */
async function* verifiedAgain(source: string, end: number, digest: string): AsyncGenerator<ResolvedBatch> {
  const read = new BatchesDigest();
  if (end > 0) {
    for await (const item of readSessionEvents(source)) {
      if (item.type !== 'batch') continue;
      read.add(item.value.batch.sha256);
      yield item.value;
      if (item.value.batch.end >= end) break;
    }
  }
  if (read.digest() !== digest)
    throw new DamagedStoreError('the log was written over while it was salvaged: salvage it again', {
      file: join(source, SESSION_FILES.log),
    });
}

/** A log read in chunks while its bytes are hashed and counted; a missing one is empty. */
interface LogChunks {
  chunks(): AsyncIterable<Buffer>;
  /** SHA-256 and size of every byte read (call after the chunks are read to the end). */
  digest(): string;
  size(): number;
  close(): Promise<void>;
}

const LOG_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Opens the log as the reader does: a regular file only (a FIFO would hang the read, a link to
 * /dev/zero would never end), read a chunk at a time, so that memory holds a frame, not the log.
 */
async function openLog(logPath: string): Promise<LogChunks> {
  const hash = createHash('sha256');
  let size = 0;
  const handle = await open(logPath, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) =>
    undefinedIfMissing(error, logPath),
  );
  if (handle) {
    const stats = await onFileSystem(handle.stat(), logPath);
    if (stats.isDirectory()) {
      await handle.close();
      throw new FileSystemError(
        Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR', path: logPath }),
      );
    }
    if (!stats.isFile()) {
      await handle.close();
      throw new NotRegularFileError('events.frames is not a regular file: salvage reads no FIFO, device or socket', {
        file: logPath,
      });
    }
  }
  return {
    async *chunks() {
      if (!handle) return;
      for (;;) {
        const buffer = Buffer.allocUnsafe(LOG_CHUNK_BYTES);
        const { bytesRead } = await onFileSystem(handle.read(buffer, 0, buffer.length, size), logPath);
        if (bytesRead === 0) return;
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        size += bytesRead;
        yield chunk;
      }
    },
    digest: () => hash.copy().digest('hex'),
    size: () => size,
    close: async () => handle?.close(),
  };
}

// Stryker disable next-line ObjectLiteral: a loose object with no fields passes recordType and event through as they are: only an object is required …
function messageIdsOf(payload: unknown): string[] {
  const record = payload as { message?: { id?: unknown }; messages?: { id?: unknown }[] } | undefined;
  // Stryker disable next-line ArrayDeclaration: the placeholder string has no id, so it adds no message id
  const messages = [record?.message, ...(Array.isArray(record?.messages) ? record.messages : [])];
  // Stryker disable next-line ArrayDeclaration: the mutant adds its own placeholder text to the known ids: only a recovered message whose id is that very …
  return messages.flatMap((message) => (typeof message?.id === 'string' ? [message.id] : []));
}

/** What a frame past the damage must be to hold an event: an object; its type and event are judged next. */
// Stryker disable next-line ObjectLiteral: a loose object with no fields passes recordType and event through: only an object is required either way …
const SalvagedRecordSchema = z.looseObject({ recordType: z.unknown(), event: z.unknown() });

/**
 * The person's view of the messages in frames past `from` that still decode: message events
 * whose payload parses, without host and local-only records, each id once and none already kept,
 * and none Reasonix would refuse to read back.
 */
async function messagesPast(
  log: AsyncIterable<Buffer>,
  from: number,
  content: ContentStore,
  known: Set<string>,
): Promise<{ found: Message[]; leftOut: SalvageReport['leftOutMessages'] }> {
  const found: Message[] = [];
  const leftOut = { host: 0, localOnly: 0, refused: 0 };
  for await (const frame of salvageFrames(log, from)) {
    try {
      const record = SalvagedRecordSchema.safeParse(parseGoJson(frame.raw));
      // JSON that is not a record (null, an array, a number), or a record of another type.
      if (!record.success || record.data.recordType !== 'batch/event') continue;
      const event = PhysicalEventSchema.parse(record.data.event);
      if (event.kind !== 'message/complete' && event.kind !== 'message/upsert') continue;
      const bytes = event.payloadRef ? await content.read(event.payloadRef) : event.payload;
      if (!bytes) continue;
      const message = MessageSchema.parse((parseGoJson(bytes) as { message?: unknown } | null)?.message);
      if (message.origin === 'host') leftOut.host += 1;
      else if (message.local_only) leftOut.localOnly += 1;
      if (message.origin === 'host' || message.local_only) continue;
      const id = message.id || `salvaged-${frame.offset}`;
      if (known.has(id)) continue;
      const recovered = { ...message, id };
      // A message Reasonix would refuse (a field it does not know) would make it refuse the whole new session: left out.
      if (decodePayload('message/complete', Buffer.from(jsonText({ message: recovered }))).state !== 'ok') {
        leftOut.refused += 1;
        continue;
      }
      known.add(id);
      found.push(recovered);
    } catch (error) {
      // A frame that decodes but does not hold a readable message (not JSON, not an event or a message,
      // its content object missing or damaged): nothing to recover from it. Anything else is a fault.
      if (!(error instanceof SyntaxError || error instanceof z.ZodError || isSessionVerdict(error)))
        throw fileSystemErrorOf(error);
    }
  }
  return { found, leftOut };
}
