import type { CommittedBatch, StoredEvent } from '../../codec/batch.js';
import { operationHashOf, payloadBytesOf, type BatchToWrite } from '../../codec/encode-batch.js';
import { RefusedBatchError } from '../../errors/index.js';
import { KNOWN_EVENT_KINDS } from '../../codec/event-kinds.js';
import type { OperationLedger } from '../../codec/operations/operation-ledger.js';
import { Projection } from '../replay/projection.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';

/** What the log already holds, so that new batches are judged as Reasonix would replay them after it. */
export interface WrittenState {
  sessionId: string;
  /** The projection of the log so far (an empty one for a new session). */
  projection: Projection;
  /** The operations of the batches already in the log; the new ones are taken in. */
  operations: OperationLedger;
  /** The sequence the first new event gets. */
  nextSequence: number;
}

/**
 * Checks batches before anything is written, with the rules Reasonix 1.38.11 reads a log by: a
 * kind it does not know must be optional; each payload must decode as its kind's (the reader's
 * `decodePayload`, message ids included, none used twice); an operation id may come again only
 * for the same events; and Reasonix must take a new turn after them (its transcript gate,
 * `transcriptGate`). The first breach is thrown, naming the batch and the event (both
 * 1-based). Sequences are assigned by the writer itself, so they are always in order.
 */
export function validateBatches(batches: readonly BatchToWrite[], state: WrittenState): void {
  let sequence = state.nextSequence;
  batches.forEach((input, batchIndex) => {
    sequence = validateBatch(input, batchIndex, sequence, state);
  });
  validateNewTurn(state, batches.length, batches.at(-1), sequence);
}

/**
 * `validateBatches` for one batch of several written as they are made: `batchIndex` (0-based) and the
 * sequence its first event gets, and the sequence after it returned. Call `validateNewTurn` after the last.
 */
export function validateBatch(input: BatchToWrite, batchIndex: number, sequence: number, state: WrittenState): number {
  const { projection, operations } = state;
  const where = `batch ${batchIndex + 1} (operation ${JSON.stringify(input.operationId)})`;
  const refuse = (message: string, extra: { event?: number; kind?: string } = {}) =>
    new RefusedBatchError(
      `refused to write ${where}${extra.event ? `, event ${extra.event}${extra.kind ? ` (${extra.kind})` : ''}` : ''}: ${message}`,
      {
        sequence: extra.event ? sequence + extra.event - 1 : sequence,
        found: extra.kind ?? input.operationId,
      },
    );
  const payloads = input.events.map((event) => payloadBytesOf(event));
  const hash = operationHashOf(state.sessionId, input, payloads);
  if (operations.admit(input.operationId, hash) !== undefined) {
    throw refuse('the operation id is already in the log with other events (Reasonix: conflicting operation)');
  }
  const batch: CommittedBatch = {
    commitId: '',
    operationId: input.operationId,
    operationHash: hash,
    firstSeq: sequence,
    eventCount: input.events.length,
    ...(input.turnId ? { turnId: input.turnId } : {}),
    writerGeneration: 1,
    createdAt: typeof input.createdAt === 'string' ? input.createdAt : (input.createdAt ?? new Date()).toISOString(),
    sha256: '',
    events: [],
    offset: 0,
    end: 0,
  };
  input.events.forEach((event, index) => {
    const kind = event.kind;
    if (!event.optional && !KNOWN_EVENT_KINDS.has(kind)) {
      throw refuse(
        'Reasonix 1.38.11 does not know this kind, and the event is not optional (unsupported session storage version)',
        { event: index + 1, kind },
      );
    }
    const stored: StoredEvent = {
      id: event.id ?? '',
      seq: sequence + index,
      kind,
      optional: event.optional ?? false,
      required: event.required ?? false,
      offset: 0,
    };
    // A record key held twice is judged on what the whole log leaves (`validateNewTurn`): a later batch may take it back.
    const before = projection.refusals.length;
    const bytes = payloads[index];
    let parsed: unknown;
    try {
      parsed = bytes && bytes.length > 0 ? parseGoJson(bytes) : undefined;
    } catch {
      // JSON.parse's SyntaxError, its only error: not JSON, which the projection refuses as the reader would.
      parsed = undefined;
    }
    projection.apply(batch, stored, parsed, bytes);
    const finding = projection.refusals[before];
    if (finding) throw refuse(`invalid ${kind} payload: ${finding.message}`, { event: index + 1, kind });
  });
  return sequence + input.events.length;
}

/**
 * After the last of `count` batches (`last`, whose events end before `sequence`): Reasonix must open the session
 * the whole log then holds (no record key held twice) and take a new turn after it.
 */
export function validateNewTurn(
  state: WrittenState,
  count: number,
  last: BatchToWrite | undefined,
  sequence: number,
): void {
  const batches = count === 1 ? `batch 1 (operation ${JSON.stringify(last?.operationId)})` : `batches 1–${count}`;
  const [refused] = state.projection.strictness;
  if (refused !== undefined && last !== undefined)
    throw new RefusedBatchError(
      `refused to write ${batches}: Reasonix would refuse to open the session they leave (${refused.message})`,
      { sequence: refused.seq, found: last.operationId },
    );
  // A session Reasonix opens but takes no new turn in is one no writer of rxstore's leaves behind.
  const turn = state.projection.newTurn;
  if (!turn.accepted && last !== undefined) {
    throw new RefusedBatchError(
      `refused to write ${batches}: Reasonix would open the session but refuse every new turn in it ("${turn.reason}")`,
      {
        sequence: sequence - 1,
        found: last.operationId,
        ...(turn.index !== undefined ? { messageIndex: turn.index } : {}),
      },
    );
  }
}
