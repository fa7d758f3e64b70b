import { z } from 'zod';
import { CursorMismatchError } from '../../errors/index.js';
import { CursorSchema } from './cursor.js';
import { firstIssue } from '../reading/first-issue.js';
import { recordOfCall, recordsOfMessage, type IndexRecord, type RecordedCall } from '../replay/index-records.js';
import type { Message } from '../replay/message.js';
import { replayedBatchesSince, type ReadSinceOptions } from './read-since.js';
import { messageTime } from '../replay/views.js';
import { SeenIds, SeenIdsSchema } from '../replay/seen-ids.js';
import { readSession } from '../reading/read-session.js';
import type { ResolvedBatch } from '../reading/read-events.js';

/**
 * At most this many records wait behind a tool call whose result has not been committed yet; past
 * it the oldest call is given without its result. Reasonix commits a result in the call's own
 * turn, so a turn's end gives every call of it; the bound only matters for a turn that never ends.
 */
const MAX_WAITING = 256;

const RecordedCallSchema = z.object({
  call: z.object({ id: z.string(), name: z.string(), arguments: z.string() }),
  base: z.object({ sessionId: z.string(), workspace: z.string().nullable(), title: z.string().nullable(), time: z.string(), messageId: z.string().optional() }),
});

/** A record kept in a cursor, as it will be given: checked for the fields every record has. */
const KeptRecordSchema = z.looseObject({ type: z.enum(['message', 'command', 'file']), sessionId: z.string(), time: z.string() });

/** What waits in order: records ready to give, behind a call still waiting for its result. */
const WaitingSchema = z.union([z.object({ call: RecordedCallSchema }), z.object({ record: KeptRecordSchema })]);
type Waiting = { call: RecordedCall } | { record: IndexRecord };

const RecordsCursorV1Schema = z.object({
  version: z.literal(1),
  log: CursorSchema,
  lastTime: z.number().nullable(),
  workspace: z.string().nullable(),
  title: z.string().nullable(),
  waiting: z.array(WaitingSchema).max(MAX_WAITING),
});

/**
 * Where an indexer stopped reading records: the log position (a `Cursor`) and what must be carried
 * across it — the time of the last message (times are made strictly increasing), the workspace
 * and title known so far, the records waiting behind a tool call whose result is committed in a
 * later batch, and hashes of the ids used so far (4 bytes an id), against which a later batch is
 * judged as the whole replay judges it. Plain JSON; validated on use. A version 1 cursor (no ids)
 * is still taken: the ids are then gathered from the log before it, once.
 */
export const RecordsCursorSchema = RecordsCursorV1Schema.extend({ version: z.literal(2), seen: SeenIdsSchema });
/** A cursor for index records: the log cursor, plus the tool calls still waiting for their results. */
export type RecordsCursor = z.infer<typeof RecordsCursorSchema>;
/** What `recordsSince` takes as a cursor: one of this version, or of the first. */
export const AcceptedRecordsCursorSchema = z.discriminatedUnion('version', [RecordsCursorSchema, RecordsCursorV1Schema]);
/** A records cursor `recordsSince` takes: one of this version, or of the first. */
export type AcceptedRecordsCursor = z.infer<typeof AcceptedRecordsCursorSchema>;

/** The records a batch completed, and the cursor to keep once they are stored. */
export interface RecordsSince {
  records: IndexRecord[];
  cursor: RecordsCursor;
}

/**
 * Index records of only what was committed since `cursor` (everything without one), batch by
 * batch, each batch's records with the cursor to keep after them. A tool call's record waits for
 * its result, committed in a later batch, so it carries the command's output and outcome; the
 * records after it wait with it, so they come in the order `records()` gives them. Over any
 * sequence of cursors, the records given add up to `records()` of the whole session, except that
 * each carries the title and workspace known when it was committed (the messages a migration
 * imported come before the first one naming the workspace, so theirs is null), and that a message
 * rewritten later (an upsert, a retraction, a history replace) is given again as it was rewritten
 * rather than taken back. A batch Reasonix would refuse only for what came before it (a message id
 * already used, a second result for an answered tool call) throws that refusal, as `records()`
 * does: the batch's ids are checked against the cursor's, and a possible repeat is decided by a
 * whole replay of the log.
 */
export function recordsSince(
  sessionDir: string,
  sessionId: string,
  context: { workspace: string | null },
  given?: unknown,
  options: ReadSinceOptions = {},
): AsyncGenerator<RecordsSince> {
  return recordsSinceNamed(sessionDir, sessionId, async () => context.workspace, given, options);
}

/**
 * `recordsSince`, with the workspace the session names (its header's, for a desktop session)
 * asked for only once a batch is new: a re-run over an unchanged session reads nothing but what
 * checks its cursor.
 */
export async function* recordsSinceNamed(
  sessionDir: string,
  sessionId: string,
  namedWorkspace: () => Promise<string | null>,
  given?: unknown,
  options: ReadSinceOptions = {},
): AsyncGenerator<RecordsSince> {
  const cursor = given === undefined ? undefined : parseRecordsCursor(given);
  let lastTime = cursor?.lastTime ?? Number.NEGATIVE_INFINITY;
  let workspace = cursor?.workspace ?? null;
  // Undefined until the first new batch asks; null when the session names none.
  let named: string | null | undefined;
  let title = cursor?.title ?? null;
  const waiting: Waiting[] = (cursor?.waiting ?? []) as Waiting[];
  // Undefined for a version 1 cursor until a new batch needs them.
  let seen = cursor === undefined ? SeenIds.none() : cursor.version === 2 ? SeenIds.from(cursor.seen) : undefined;

  // Each batch replayed on its own (the messages it writes, the workspace and title it names), as the check for a refused payload replays it.
  for await (const { batch, replay, cursor: log } of replayedBatchesSince(sessionDir, sessionId, cursor?.log, options)) {
    seen ??= await seenBefore(sessionDir, sessionId, batch.batch.offset);
    if (seen.add(replay)) await refuseAsTheWholeReplay(sessionDir, batch);
    if (named === undefined) named = await namedWorkspace();
    workspace = named ?? replay.workspace ?? workspace;
    title = replay.title ?? title;
    for (const { message, batchTime } of replay.transcript) {
      const time = messageTime(message, batchTime, lastTime);
      lastTime = time;
      if (message.role === 'tool' && message.tool_call_id) complete(waiting, message.tool_call_id, message);
      const { said, calls } = recordsOfMessage(message, time, { sessionId, workspace, title });
      if (said) waiting.push({ record: said });
      for (const call of calls) waiting.push({ call });
    }
    // A turn that ended gave every call of it the result it will get.
    if (replay.turns.size > 0 && [...replay.turns.values()].some((turn) => turn.status !== 'in_progress')) completeAll(waiting);
    const records = takeReady(waiting);
    // Past the bound the oldest waiting call is given without its result, with what waited behind it.
    while (waiting.length > MAX_WAITING) {
      settle(waiting, 0, undefined);
      records.push(...takeReady(waiting));
    }
    yield {
      records,
      cursor: {
        version: 2,
        log,
        lastTime: Number.isFinite(lastTime) ? lastTime : null,
        workspace,
        title,
        waiting: [...waiting] as RecordsCursor['waiting'],
        seen: seen.save(),
      },
    };
  }
}

function parseRecordsCursor(given: unknown): AcceptedRecordsCursor {
  const parsed = AcceptedRecordsCursorSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new CursorMismatchError(`not a records cursor rxstore made: ${firstIssue(parsed.error)}`, {});
}

/** The ids of the batches before `offset`, each replayed on its own: a version 1 cursor's, gathered once. */
async function seenBefore(sessionDir: string, sessionId: string, offset: number): Promise<SeenIds> {
  const seen = SeenIds.none();
  if (offset === 0) return seen;
  for await (const { batch, replay } of replayedBatchesSince(sessionDir, sessionId)) {
    if (batch.batch.offset >= offset) break;
    seen.add(replay);
  }
  return seen;
}

/**
 * A batch that may reuse an id or answer a call again, judged by a replay of the whole log: the
 * refusal is thrown when it falls at or before this batch (one after it is met when its batch is
 * read); nothing happens when the hashes only collided.
 */
async function refuseAsTheWholeReplay(sessionDir: string, batch: ResolvedBatch): Promise<void> {
  const whole = await readSession(sessionDir, { caches: false, keep: 'summary' });
  if (!whole.refusal) return;
  const lastSeq = batch.batch.firstSeq + batch.batch.eventCount - 1;
  const refusedAt = whole.projection.refusedAt;
  const offset = whole.refusal.data.offset;
  const later = refusedAt !== undefined ? refusedAt > lastSeq : offset !== undefined && offset >= batch.batch.end;
  if (!later) throw whole.refusal;
}

/** The waiting call with this id takes its result. */
function complete(waiting: Waiting[], callId: string, result: Message): void {
  const at = waiting.findIndex((item) => 'call' in item && item.call.call.id === callId);
  if (at >= 0) settle(waiting, at, result);
}

/** Every waiting call is given as it stands, from the last so that positions hold. */
function completeAll(waiting: Waiting[]): void {
  for (let at = waiting.length - 1; at >= 0; at -= 1) settle(waiting, at, undefined);
}

/** A waiting call becomes its record, or leaves the queue for a tool that is not indexed. */
function settle(waiting: Waiting[], at: number, result: Message | undefined): void {
  const item = waiting[at]!;
  if (!('call' in item)) return;
  const record = recordOfCall(item.call, result);
  if (record) waiting[at] = { record };
  else waiting.splice(at, 1);
}

/** The records at the front that wait for nothing, taken out in order. */
function takeReady(waiting: Waiting[]): IndexRecord[] {
  const ready: IndexRecord[] = [];
  while (waiting.length > 0 && 'record' in waiting[0]!) ready.push((waiting.shift() as { record: IndexRecord }).record);
  return ready;
}
