// The messages salvage recovers from a damaged log past its last verified batch: read once to count
// and judge them, then again as the new session is written, in batches of a bounded size.
import { createHash, type Hash } from 'node:crypto';
import { constants, fstatSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as z from 'zod';
import type { ContentStore } from '../../codec/content-store.js';
import type { BatchToWrite, EventToWrite } from '../../codec/encode-batch.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';
import { jsonText } from '../../codec/go-json/json-text.js';
import { PhysicalEventSchema } from '../../codec/records.js';
import { salvageFrames } from '../../codec/salvage-frames.js';
import {
  LogChangedWhileSalvagedError,
  FileSystemError,
  fileSystemErrorOf,
  isSessionVerdict,
  NotRegularFileError,
  onFileSystem,
  undefinedIfMissing,
} from '../../errors/index.js';
import { fileStamp, statOrCode } from '../../fs/files-stamp.js';
import { MessageSchema, type Message } from '../replay/message.js';
import { decodePayload } from '../replay/payloads.js';
import { gateEntry, type GateMessage } from '../replay/transcript-gate.js';
import { collidingRecordKeys } from '../replay/transcript-records.js';

/** Messages read past the damage and left out, by why (`SalvageReport.leftOutMessages`). */
export interface LeftOutMessages {
  host: number;
  localOnly: number;
  refused: number;
}

/** What a stat of the log says (`fileStamp`): another file in its place, or this one written, changes it. */
export function stampOf(logPath: string): string {
  const stats = statOrCode(logPath);
  return typeof stats === 'string' ? (stats === 'ENOENT' ? 'none' : stats) : fileStamp(stats);
}

/** What a frame past the damage must be to hold an event: an object; its type and event are judged next. */
// Stryker disable next-line ObjectLiteral: a loose object with no fields passes recordType and event through: only an object is required either way …
const SalvagedRecordSchema = z.looseObject({ recordType: z.unknown(), event: z.unknown() });

/** What a read of the messages past the verified batches counted, and what tells a second read is the same. */
interface RecoveredTally {
  messages: number;
  leftOut: LeftOutMessages;
  /** SHA-256 of the messages as they are written, and the log's SHA-256 and size as read (set at the end). */
  digest: Hash;
  logDigest: string;
  logSize: number;
}

/** The first read's tally, and what the transcript gate reads of each message, in order. */
export interface RecoveredCount extends Omit<RecoveredTally, 'digest'> {
  digest: string;
  gateFacts: GateMessage[];
}

/**
 * The messages in the log past the verified batches, read once to count and judge them, then again
 * as they are written: memory holds a batch of them, never all. A second read that does not give the same
 * messages (the log or a content object written over between the reads) ends in an error.
 */
export class RecoveredMessages {
  constructor(
    private readonly logPath: string,
    /** The log's stamp before the first read of its batches (`stampOf`): each read here checks it reads that file. */
    private readonly logStamp: string,
    private readonly from: number,
    private readonly content: ContentStore,
    private readonly known: ReadonlySet<string>,
    /** The record keys the kept transcript holds (`recordKeysHeld`): a message that repeats one is left out. */
    private readonly held: ReadonlySet<string>,
  ) {}

  async count(): Promise<RecoveredCount> {
    const tally = newTally();
    const facts: GateMessage[] = [];
    for await (const message of this.read(tally)) facts.push(gateEntry(message));
    return { ...tally, digest: tally.digest.digest('hex'), gateFacts: facts };
  }

  async *again(first: RecoveredCount): AsyncGenerator<Message> {
    const tally = newTally();
    yield* this.read(tally);
    if (tally.digest.digest('hex') !== first.digest || tally.logDigest !== first.logDigest)
      throw new LogChangedWhileSalvagedError(this.logPath);
  }

  private async *read(tally: RecoveredTally): AsyncGenerator<Message> {
    const log = await openLog(this.logPath);
    try {
      // Another file renamed into its place, or this one written since: not the log whose damage was found.
      if (log.stamp() !== this.logStamp) throw new LogChangedWhileSalvagedError(this.logPath);
      const past = messagesPast(log.chunks(), this.from, this.content, {
        ids: new Set(this.known),
        keys: new Set(this.held),
        leftOut: tally.leftOut,
      });
      for await (const message of past) {
        tally.messages += 1;
        tally.digest.update(jsonText(message)).update('\0');
        yield message;
      }
      if (log.stamp() !== this.logStamp) throw new LogChangedWhileSalvagedError(this.logPath);
    } finally {
      await log.close();
    }
    tally.logDigest = log.digest();
    tally.logSize = log.size();
  }
}

/** Every item of `items`, in order (`Array.fromAsync`, which Node 20 does not have). */
export async function gathered<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const newTally = (): RecoveredTally => ({
  messages: 0,
  leftOut: { host: 0, localOnly: 0, refused: 0 },
  digest: createHash('sha256'),
  logDigest: '',
  logSize: 0,
});

/** How many recovered messages a batch of the new session holds at most, and about how many bytes of them. */
const RECOVERED_BATCH_MESSAGES = 256;
const RECOVERED_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * The recovered messages as batches of the new session, the `diagnostic` event that says where they
 * came from first: several batches of a bounded size, so that what is written is held a batch at a time.
 */
export async function* recoveredBatches(
  sourceName: string,
  diagnostic: EventToWrite,
  messages: AsyncIterable<Message>,
): AsyncGenerator<BatchToWrite> {
  let events: EventToWrite[] = [diagnostic];
  let [bytes, held, count] = [0, 0, 0];
  const batch = (): BatchToWrite => {
    count += 1;
    const taken = events;
    [events, bytes, held] = [[], 0, 0];
    return { operationId: `salvage:${sourceName}:recovered${count === 1 ? '' : `:${count}`}`, events: taken };
  };
  for await (const message of messages) {
    const size = jsonText(message).length;
    if (held > 0 && (held >= RECOVERED_BATCH_MESSAGES || bytes + size > RECOVERED_BATCH_BYTES)) yield batch();
    events.push({ kind: 'message/complete', payload: { message } });
    [bytes, held] = [bytes + size, held + 1];
  }
  if (events.length > 0) yield batch();
}

/**
 * The person's view of the messages in frames past `from` that still decode: message events
 * whose payload parses, without host and local-only records (counted in `leftOut`), each id once
 * and none already `known`, and none Reasonix would refuse to read back.
 */
async function* messagesPast(
  log: AsyncIterable<Buffer>,
  from: number,
  content: ContentStore,
  { ids: known, keys: held, leftOut }: { ids: Set<string>; keys: Set<string>; leftOut: LeftOutMessages },
): AsyncGenerator<Message> {
  for await (const frame of salvageFrames(log, from)) {
    let recovered: Message & { id: string };
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
      recovered = { ...message, id };
      // A message Reasonix would refuse (a field it does not know) would make it refuse the whole new session: left out.
      if (decodePayload('message/complete', Buffer.from(jsonText({ message: recovered }))).state !== 'ok') {
        leftOut.refused += 1;
        continue;
      }
      // So would a record key met twice (a second result for a call, a notice at a place a kept id names).
      const keys = collidingRecordKeys(recovered);
      if (keys.some((key) => held.has(key))) {
        leftOut.refused += 1;
        continue;
      }
      for (const key of keys) held.add(key);
    } catch (error) {
      // A frame that decodes but does not hold a readable message (not JSON, not an event or a message,
      // its content object missing or damaged): nothing to recover from it. Anything else is a fault.
      if (!(error instanceof SyntaxError || error instanceof z.ZodError || isSessionVerdict(error)))
        throw fileSystemErrorOf(error);
      continue;
    }
    known.add(recovered.id);
    yield recovered;
  }
}

/** A log read in chunks while its bytes are hashed and counted; a missing one is empty. */
interface LogChunks {
  chunks(): AsyncIterable<Buffer>;
  /** SHA-256 and size of every byte read (call after the chunks are read to the end). */
  digest(): string;
  size(): number;
  /** What a stat of the open file says now (`stampOf`); 'none' for a log that is not there. */
  stamp(): string;
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
    stamp: () => (handle ? fileStamp(fstatSync(handle.fd, { bigint: true })) : 'none'),
    close: async () => handle?.close(),
  };
}
