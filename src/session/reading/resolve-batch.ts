import type { CommittedBatch, StoredEvent } from '../../codec/batch.js';
import type { ContentStore } from '../../codec/content-store.js';
import type { PayloadRef } from '../../codec/records.js';
import { CorruptContentError, fileSystemErrorOf, MissingContentError } from '../../errors/index.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';

/** A committed batch with each event's payload resolved and parsed (undefined when it has none). */
export interface ResolvedBatch {
  batch: CommittedBatch;
  payloads: unknown[];
  /** Each payload's exact JSON bytes (from the log or the content store). */
  payloadBytes: (Buffer | undefined)[];
}

/** A committed batch of the log at `logPath` with each event's payload read (payloadRefs through `content`) and parsed. */
export async function resolveBatch(
  batch: CommittedBatch,
  content: ContentStore,
  logPath: string,
): Promise<ResolvedBatch> {
  const payloads: unknown[] = [];
  const payloadBytes: (Buffer | undefined)[] = [];
  for (const event of batch.events) {
    // Inline payloads (nearly all) are at hand: only a payloadRef waits on the content store.
    const bytes = event.payloadRef
      ? await readReferencedPayload(event, event.payloadRef, content, logPath)
      : event.payload;
    payloadBytes.push(bytes);
    payloads.push(parsePayload(bytes));
  }
  return { batch, payloads, payloadBytes };
}

/** The bytes an event's payloadRef names, with a missing or wrong object named as Reasonix names it. */
async function readReferencedPayload(
  event: StoredEvent,
  ref: PayloadRef,
  content: ContentStore,
  logPath: string,
): Promise<Buffer> {
  try {
    return await content.read(ref);
  } catch (error) {
    // Anything else is the machine's (a read the disk failed), not the session's.
    if (!(error instanceof MissingContentError || error instanceof CorruptContentError)) throw fileSystemErrorOf(error);
    // Reasonix names the event and refuses the session (docs/format.md §6.3).
    const Named = error instanceof MissingContentError ? MissingContentError : CorruptContentError;
    throw new Named(`read v4 event ${event.id} payload: ${error.message}`, {
      ...error.data,
      file: error.data.file ?? logPath,
      eventId: event.id,
      sequence: event.seq,
    });
  }
}

/**
 * The payload as JSON; undefined when there is none or it is not JSON. Whether Reasonix accepts
 * it depends on the kind (some it never reads): the projection judges it (`decodePayload`).
 */
function parsePayload(bytes: Buffer | undefined): unknown {
  // Stryker disable next-line ConditionalExpression: undefined.toString throws inside the try, whose catch returns undefined as the guard does
  if (!bytes || bytes.length === 0) return undefined;
  try {
    return parseGoJson(bytes);
    // Stryker disable next-line BlockStatement: an empty catch block returns undefined too
  } catch {
    // JSON.parse's SyntaxError, its only error: the payload is not JSON, which the projection judges.
    return undefined;
  }
}
