import { createHash } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import type { BatchToWrite, EventToWrite } from '../../codec/encode-batch.js';
import {
  BatchChangedError,
  isSessionVerdict,
  LogChangedWhileSalvagedError,
  LogCutWhileReadError,
  type Problem,
  problemFromError,
} from '../../errors/index.js';
import { V4_CODEC } from '../../codec/records.js';
import { createSession } from './create-session.js';
import { repairForNewTurn, type TurnRepairChange } from './turn-repair.js';
import { Projection } from '../replay/projection.js';
import { strictPayloadError } from '../replay/strict-payload-error.js';
import { BatchesDigest } from '../verdict/batches-digest.js';
import { checkFolder, checkOutside } from '../../fs/path-kind.js';
import { refuseSessionFolder } from '../reading/not-a-session-folder.js';
import type { Message } from '../replay/message.js';
import { readSessionEvents, type ResolvedBatch } from '../reading/read-events.js';
import { transcriptGate } from '../replay/transcript-gate.js';
import { gathered, RecoveredMessages, recoveredBatches, stampOf, type LeftOutMessages } from './recovered-messages.js';
import { sessionContentStore } from '../reading/session-content.js';
import { readManifest } from '../reading/manifest.js';
import { readableOrThrow } from '../reading/read-json-file.js';
import { SESSION_FILES, sessionReadPaths } from '../reading/session-files.js';
import { checkPath } from '../../errors/caller-input.js';

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
  leftOutMessages: LeftOutMessages;
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
  checkPath(dir, 'dir');
  if (options.to !== undefined) checkPath(options.to, 'to');
  const source = resolve(dir);
  if (options.to !== undefined) {
    // A store that is there (a typo makes no new store nobody looks in), and not inside the session salvaged.
    await checkFolder(resolve(options.to), options.to, { mustExist: true });
    await checkOutside(resolve(options.to), options.to, 'folder', sessionReadPaths(source));
    await refuseSessionFolder(resolve(options.to), options.to);
  }
  const logPath = join(source, SESSION_FILES.log);
  // The log as the first read found it: every later read checks it reads this very file, unchanged.
  const logStamp = stampOf(logPath);
  let kept = await verifiedBatches(source);
  // What Reasonix refuses only as the whole log leaves it (a record key held twice) reads as verified: the
  // batch that wrote it is where the log stops being trusted, or salvage would write what its writer refuses.
  const [wholeLogRefusal] = kept.projection.strictness;
  if (kept.damage === null && wholeLogRefusal !== undefined) {
    kept = await verifiedBatches(source, wholeLogRefusal.seq);
    kept.damage = problemFromError(strictPayloadError(wholeLogRefusal, logPath));
  }
  const { projection, batchesKept, eventsKept, verifiedEnd, known, damage } = kept;

  // The messages past the damage are counted here, and read again as they are written.
  const content = await sessionContentStore(source);
  const held = projection.transcriptIndex.recordKeysHeld();
  const past = new RecoveredMessages(logPath, logStamp, verifiedEnd, content, known, held);
  const first = await past.count();
  const verifiedDigest = kept.verified.digest();
  // Recovered messages are sent after the kept ones; a repair replaces the whole list the model is sent,
  // so only a repair reads that list whole (one record of the new session holds it).
  const refused =
    projection.strictness.length === 0 && !transcriptGate([...projection.gateMessages(), ...first.gateFacts]).accepted;
  const repair = refused
    ? repairForNewTurn([
        ...(await modelMessagesThrough(source, verifiedEnd, verifiedDigest)),
        ...(await gathered(past.again(first))),
      ])
    : undefined;
  const repairBatch: BatchToWrite | undefined = repair && {
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
  };
  const storeDir = resolve(options.to ?? dirname(source));
  const logDigest = first.logDigest;
  // Named by what it salvages: a dry run names the session the real run writes, and a second run
  // of the same damaged log finds its salvage already there instead of writing another. What was
  // kept and recovered is in the name too: the same log with a content object put back or lost since
  // is salvaged into another session.
  const newId = createHash('sha256')
    .update(`rxstore-salvage\0${basename(source)}\0${logDigest}\0${verifiedDigest}\0${first.digest}`)
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
    recoveredMessages: first.messages,
    leftOutMessages: first.leftOut,
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
    source: { path: source, size: first.logSize, sha256: logDigest, version: V4_CODEC },
    inheritedEventCount: report.eventsKept,
    keepBatches: false,
    batches: (async function* () {
      yield* keptBatches(source, verifiedEnd, verifiedDigest);
      if (first.messages > 0 || damage) {
        const diagnostic: EventToWrite = {
          kind: 'diagnostic',
          payload: {
            salvage: {
              source,
              damage: damage?.message ?? null,
              offset: damage?.data.offset ?? null,
              verifiedEnd,
              recoveredMessages: first.messages,
            },
          },
        };
        yield* recoveredBatches(basename(source), diagnostic, past.again(first));
      }
      if (repairBatch) yield repairBatch;
    })(),
  });
  return report;
}

/** The verified prefix of a log: its batches up to the damage, or up to the one holding event `stopAt`. */
interface VerifiedPrefix {
  batchesKept: number;
  eventsKept: number;
  verifiedEnd: number;
  verified: BatchesDigest;
  /** The message ids the kept batches wrote. */
  known: Set<string>;
  damage: Problem | null;
  /** Whether Reasonix takes a new turn after the kept batches: messages are kept as the index only. */
  projection: Projection;
}

/**
 * The log's batches read and replayed up to its damage, or up to the batch holding event `stopAt`. The
 * kept batches are read again as they are written: memory does not grow with the session.
 */
async function verifiedBatches(source: string, stopAt?: number): Promise<VerifiedPrefix> {
  const prefix: VerifiedPrefix = {
    batchesKept: 0,
    eventsKept: 0,
    verifiedEnd: 0,
    verified: new BatchesDigest(),
    known: new Set<string>(),
    damage: null,
    projection: new Projection({ keep: 'index' }),
  };
  try {
    for await (const item of readSessionEvents(source)) {
      if (item.type !== 'batch') continue;
      const { batch, payloads } = item.value;
      if (stopAt !== undefined && stopAt < batch.firstSeq + batch.events.length) break;
      prefix.projection.applyBatch(item.value);
      for (const id of payloads.flatMap((payload) => messageIdsOf(payload))) prefix.known.add(id);
      prefix.verified.add(batch.sha256);
      prefix.batchesKept += 1;
      prefix.eventsKept += batch.events.length;
      prefix.verifiedEnd = batch.end;
    }
  } catch (error) {
    // Damage (or a version it does not know) is where salvage stops trusting the log; anything else goes on
    // up, a log cut or written over while it was read too: that is not damage at the place it was seen.
    if (!isSessionVerdict(error) || error instanceof LogCutWhileReadError || error instanceof BatchChangedError)
      throw error;
    prefix.damage = problemFromError(error);
  }
  return prefix;
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
  const writtenOver = () => new LogChangedWhileSalvagedError(join(source, SESSION_FILES.log));
  if (end > 0) {
    try {
      for await (const item of readSessionEvents(source)) {
        if (item.type !== 'batch') continue;
        read.add(item.value.batch.sha256);
        yield item.value;
        if (item.value.batch.end >= end) break;
      }
    } catch (error) {
      // Batches the first read verified that do not verify now: the log changed, not the damage it has.
      if (isSessionVerdict(error)) throw writtenOver();
      throw error;
    }
  }
  if (read.digest() !== digest) throw writtenOver();
}

// Stryker disable next-line ObjectLiteral: a loose object with no fields passes recordType and event through as they are: only an object is required …
function messageIdsOf(payload: unknown): string[] {
  const record = payload as { message?: { id?: unknown }; messages?: { id?: unknown }[] } | undefined;
  // Stryker disable next-line ArrayDeclaration: the placeholder string has no id, so it adds no message id
  const messages = [record?.message, ...(Array.isArray(record?.messages) ? record.messages : [])];
  // Stryker disable next-line ArrayDeclaration: the mutant adds its own placeholder text to the known ids: only a recovered message whose id is that very …
  return messages.flatMap((message) => (typeof message?.id === 'string' ? [message.id] : []));
}
