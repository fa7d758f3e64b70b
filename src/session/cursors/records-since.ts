import { join } from 'node:path';
import * as z from 'zod';
import { CursorMismatchError } from '../../errors/index.js';
import { CursorSchema, type Cursor } from './cursor.js';
import { cursorSeal } from './cursor-seal.js';
import { firstIssue } from '../../codec/first-issue.js';
import {
  answers,
  loneResultRecord,
  indexRecords,
  keyedMessages,
  pairedRecords,
  recordOfCall,
  recordsOfMessage,
  sessionKey,
  type IndexRecord,
  type KeyedMessage,
  type RecordChange,
  type RecordContext,
  type RecordedCall,
} from '../replay/index-records.js';
import { Projection } from '../replay/projection.js';
import {
  gateCarry,
  GateCarrySchema,
  transcriptGate,
  type GateCarry,
  type GateMessage,
} from '../replay/transcript-gate.js';
import { flatToolCall } from '../replay/message.js';
import { replayedBatchesSince, startSince, type ReadSinceOptions } from './read-since.js';
import { CALL_ID_BITS, IdFilter, idFilterSchema, MESSAGE_ID_BITS, type SavedIdFilter } from './id-filter.js';
import { readSession } from '../verdict/read-session.js';
import { readSessionEvents, type ResolvedBatch } from '../reading/read-events.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { sessionContentStore } from '../reading/session-content.js';
import type { ContentStore } from '../../codec/content-store.js';
import { writtenMessages, TranscriptWritesRead, type TranscriptWrites } from './transcript-writes.js';

/** At most this many calls wait in a cursor for their results, in at most `PENDING_CHARACTERS` of JSON; past either, the oldest is given as it stands. The bounds keep a cursor within 80 KiB. */
const MAX_PENDING = 128;
const PENDING_CHARACTERS = 28 * 1024;

const PendingCallSchema = z.object({
  call: z.object({ id: z.string(), name: z.string(), arguments: z.string() }),
  base: z.object({
    key: z.string(),
    sessionId: z.string(),
    workspace: z.string().nullable(),
    title: z.string().nullable(),
    time: z.string(),
    messageId: z.string().optional(),
  }),
  /** Its record is not given yet: it is, with the result, or as it stands when its turn or the read ends. */
  held: z.boolean(),
  /** An earlier message made a call with its id: its result may be a second one for that id, which the whole log judges. */
  repeated: z.literal(true).optional(),
});
type PendingCall = z.infer<typeof PendingCallSchema>;

/**
 * What the batches read so far say of a session as a whole: Reasonix takes a new turn in it (`ok`)
 * or opens it but refuses every new turn (`turn-refused`: its transcript gate refuses the model's
 * list), as `read()`, `ls` and `inspect` say it. A session Reasonix refuses (`damaged`,
 * `unsupported`) is no status of the stream: the read throws that refusal after the records before it.
 */
export type StreamStatus = 'ok' | 'turn-refused';

/** The session's title and workspace as the log so far names them (the header's workspace first), and its status. */
export interface SessionFields {
  title: string | null;
  workspace: string | null;
  status: StreamStatus;
}
const SessionFieldsSchema = z.object({
  title: z.string().nullable(),
  workspace: z.string().nullable(),
  /** Absent in a cursor made before statuses: judged again by the next read. */
  status: z.enum(['ok', 'turn-refused']).optional(),
});

/** A gate tail larger than this (one message with some thirty calls or more) is not kept: the next read judges the whole log. */
const GATE_CHARACTERS = 2 * 1024;

/**
 * What Reasonix's transcript gate needs of the model's list to judge what later batches add
 * (`GateCarry`), `refused` when a message before that tail already makes it refuse every new turn
 * (only a batch that rewrites the list changes that), or null when the batches read could not tell
 * (a message rewritten in place): the read then replays its log once, at its end.
 */
const GateStateSchema = z.union([GateCarrySchema, z.literal('refused')]).nullable();
type GateState = z.infer<typeof GateStateSchema>;

/**
 * Where an indexer stopped reading records: the log position (a `Cursor`), the session's title,
 * workspace and status as known there, what the transcript gate carries (at most 2 KiB), the tool
 * calls still waiting for a result (at most 128, in at most 28 KiB), and the message and call ids
 * used so far as bounded filters (`idFilterSchema`, 11 and 22 KB of base64 at most), against which
 * a later batch is judged as the whole replay judges it, and its log cursor the operation ids used (at most
 * 13 KB more). Plain JSON, within 80 KiB whatever the
 * log (but for a title or workspace longer than a kilobyte or so); validated on use. A cursor of an earlier version is refused (`CursorMismatchError`):
 * its records had no keys, so the session is read again from the start. One of this version made
 * before statuses (no `session.status`) is taken: the next read judges the status at its end.
 */
export const RecordsCursorSchema = z.object({
  version: z.literal(3),
  log: CursorSchema,
  session: SessionFieldsSchema,
  pending: z.array(PendingCallSchema).max(MAX_PENDING),
  /** The message ids the transcript holds. */
  ids: idFilterSchema(MESSAGE_ID_BITS),
  /** The tool-call ids its messages made. */
  calls: idFilterSchema(CALL_ID_BITS),
  /** What judges whether Reasonix takes a new turn after the batches to come; absent in a cursor made before statuses. */
  gate: GateStateSchema.optional(),
  /** Binds the log position to the records state made there (`cursorSeal`); absent in a cursor made before seals. */
  seal: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
/** A cursor for index records. */
export type RecordsCursor = z.infer<typeof RecordsCursorSchema>;
/** What `recordsSince` takes as a cursor (the records cursor of this version). */
export const AcceptedRecordsCursorSchema = RecordsCursorSchema;
/** A records cursor `recordsSince` takes. */
export type AcceptedRecordsCursor = RecordsCursor;

/** What a read of records since a cursor gives at a time: the changes of the batches read, and the cursor to keep once they are stored. */
export interface RecordsSince {
  /** Records to add or replace by their `key`, and `removed` records, to apply in order. */
  records: RecordChange[];
  /**
   * The session's title, workspace and status, when one of them changed (and on the first piece
   * read from no cursor). A status the batches alone cannot tell (a message rewritten in place) is
   * judged once on the log at the read's end, and given with the read's last piece.
   */
  session?: SessionFields;
  cursor: RecordsCursor;
  /**
   * The content-store files (objects, integrity indexes) the payloads of this piece's batches were
   * read from; absent when none. What the records depend on outside the log: a caller that keeps
   * them can stamp these files (as `ls` keeps a summary) and read the session again from the start
   * once one changes, which no cursor would tell.
   */
  contentFiles?: string[];
  /**
   * The transcript's messages this piece's batches wrote, in order (absent when none): an indexer
   * keeps the person view's order from them, to number a message as `cat` does, without reading
   * the session whole.
   */
  transcript?: TranscriptWrites;
}

/** How far `recordsSince` reads, and whether it gives a cursor at the end. */
export interface RecordsSinceOptions extends ReadSinceOptions {
  /**
   * A piece is given only after a batch that changed a record or the session's fields; with this,
   * a last piece (with no records when nothing changed) carries the cursor after the last batch
   * read, so that a later read does not read again the batches after the last change; and a read
   * that found nothing new in a log written in place since the cursor (verified again, whole) gives
   * one piece with no records, whose cursor carries the log's new stamp, so that the next read does
   * not verify it again.
   */
  cursorAtEnd?: boolean;
}

/**
 * The changes to the records of a session committed since `cursor` (from the beginning without
 * one), one piece after each batch that changed something, each with the cursor to keep once its
 * records are stored. Applied in order by key — a record adds or replaces the one with its key, a
 * `removed` record takes away its key and every key under it — the pieces of a read that ran to
 * the end give exactly `records()` of the session as it then stood, however the log was cut into
 * reads; except that a record carries the title and workspace known when it was given, and a
 * piece's `session` says when those change, and when the session's status does (`ok`,
 * `turn-refused`, as `read()` says it; damage is thrown, after the records before it). The cursor
 * of a piece is made when it is read (stored): a caller that keeps only the last one pays for one.
 * A tool call's record waits in the cursor for its result, and is given with it, or as it stands
 * when its turn ends or the read does. A batch that
 * takes back or rewrites what earlier batches wrote (a retract, an upsert of a message with calls,
 * a result for a call no longer waiting) is judged by a replay of the log up to it, once. A batch
 * Reasonix would refuse for what came before it (a message id already used, a second result for an
 * answered call) throws that refusal, as `records()` does.
 */
export function recordsSince(
  sessionDir: string,
  sessionId: string,
  context: { workspace: string | null },
  given?: unknown,
  options: RecordsSinceOptions = {},
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
  options: RecordsSinceOptions = {},
): AsyncGenerator<RecordsSince> {
  const cursor = given === undefined ? undefined : parseRecordsCursor(given, join(sessionDir, SESSION_FILES.log));
  const start = await startSince(sessionDir, sessionId, cursor?.log);
  if (start.caughtUp) {
    // Nothing new. A log verified again (written in place since the cursor): the cursor with its new stamp, for the next check to cost a stat.
    if (options.cursorAtEnd && cursor && start.restamped)
      yield { records: [], cursor: { ...cursor, log: start.cursor! } };
    return;
  }
  const reader = new RecordsReader(sessionDir, sessionId, cursor);
  // Undefined until the first new batch asks; null when the session names none.
  let named: string | null | undefined;
  // The log's cursor after the last batch read, made only when a records cursor of it is read.
  let log: (() => Cursor) | undefined;
  let givenAt: (() => Cursor) | undefined;
  let end = 0;
  const content = new ContentFilesRead(sessionDir);
  for await (const { batch, replay, cursor: after } of replayedBatchesSince(sessionDir, sessionId, start, options)) {
    if (named === undefined) named = await namedWorkspace();
    log = after;
    end = batch.batch.end;
    await content.add(batch);
    reader.name({
      workspace: named ?? replay.workspace ?? reader.fields.workspace,
      title: replay.title ?? reader.fields.title,
    });
    const records = await reader.read(batch, replay);
    const session = reader.sessionChange();
    if (records.length === 0 && !session) continue;
    givenAt = log;
    yield {
      records,
      ...(session ? { session } : {}),
      cursor: reader.cursorAt(log),
      ...content.given(),
      ...reader.transcript.given(),
    };
  }
  if (!log) return;
  // The read's end: a call still waiting is given as it stands, as `records()` gives it now; a
  // status the batches could not tell is judged on the log up to here.
  const flushed = reader.flush();
  await reader.settleGate(end);
  const session = reader.sessionChange();
  if (flushed.length > 0 || session || (options.cursorAtEnd && givenAt !== log))
    yield {
      records: flushed,
      ...(session ? { session } : {}),
      cursor: reader.cursorAt(log),
      ...content.given(),
      ...reader.transcript.given(),
    };
}

/** The content-store files the batches read since the last piece took, given with the next piece. */
class ContentFilesRead {
  private store: ContentStore | undefined;
  private files = new Set<string>();

  constructor(private readonly sessionDir: string) {}

  async add({ batch }: ResolvedBatch): Promise<void> {
    for (const { payloadRef } of batch.events) {
      if (!payloadRef) continue;
      // Found as the read found it (the manifest's `contentRoot`), once the log names a first payloadRef.
      this.store ??= await sessionContentStore(this.sessionDir);
      for (const file of this.store.filesOf(payloadRef)) this.files.add(file);
    }
  }

  /** `contentFiles` for the piece given now: those taken since the last one, if any. */
  given(): { contentFiles?: string[] } {
    if (this.files.size === 0) return {};
    const contentFiles = [...this.files];
    this.files = new Set();
    return { contentFiles };
  }
}

/** Events after which the model's list is what the batch's own replay holds: the list was replaced. */
const LIST_RESETS = new Set(['history/replace', 'legacy/import', 'model/context-replace', 'compaction']);
const GATE_START: GateCarry = { raw: 0, paired: 0, tail: [] };

/** What a read of records carries from batch to batch, and into its cursors. */
class RecordsReader {
  fields: SessionFields;
  /** What the batches read since the last piece wrote to the transcript. */
  readonly transcript = new TranscriptWritesRead();
  /** The fields as the last piece (or the cursor read from) gave them; undefined before a first piece from no cursor. */
  private given: SessionFields | undefined;
  private gate: GateState;
  /** The batch being read rewrote a message in place, which the transcript gate may have read otherwise before. */
  private rewritten = false;
  private pending: PendingCall[];
  private pendingCharacters: number;
  /** Calls this batch gave as they stood, past the bounds, by id: a result later in the same batch completes one. */
  private readonly givenThisBatch = new Map<string, PendingCall>();
  private ids: KnownIds;
  private calls: KnownIds;

  constructor(
    private readonly sessionDir: string,
    private readonly sessionId: string,
    cursor: RecordsCursor | undefined,
  ) {
    const status = cursor?.session.status;
    this.fields = cursor
      ? { ...cursor.session, status: status ?? 'ok' }
      : { title: null, workspace: null, status: 'ok' };
    this.given = cursor ? { ...cursor.session, status: status ?? 'ok' } : undefined;
    // A cursor made before statuses has no gate: the read judges the log at its end, and says the status.
    if (cursor && status === undefined) this.given = undefined;
    this.gate = cursor ? (status === undefined ? null : (cursor.gate ?? null)) : GATE_START;
    this.pending = cursor ? [...cursor.pending] : [];
    this.pendingCharacters = this.pending.reduce((sum, item) => sum + sizeOf(item), 0);
    this.ids = new KnownIds(cursor?.ids, true, MESSAGE_ID_BITS);
    this.calls = new KnownIds(cursor?.calls, false, CALL_ID_BITS);
  }

  /** Takes the session's title and workspace as the batch left them. */
  name(named: { title: string | null; workspace: string | null }): void {
    this.fields = { ...this.fields, ...named };
  }

  /** The session's fields when they differ from those last given (always on a first piece from no cursor), now given. */
  sessionChange(): SessionFields | undefined {
    const { given, fields } = this;
    if (given && given.title === fields.title && given.workspace === fields.workspace && given.status === fields.status)
      return undefined;
    this.given = { ...fields };
    return { ...fields };
  }

  /** A status the batches read could not tell, judged on a replay of the log up to `end` (the end of the last batch read). */
  async settleGate(end: number): Promise<void> {
    if (this.gate !== null) return;
    const projection = new Projection({ keep: 'index' });
    for await (const item of readSessionEvents(this.sessionDir, { offset: 0, nextSequence: 1 })) {
      if (item.type !== 'batch') continue;
      const { batch, payloads, payloadBytes } = item.value;
      if (batch.end > end) break;
      batch.events.forEach((event, index) => projection.apply(batch, event, payloads[index], payloadBytes[index]));
      if (batch.end === end) break;
    }
    this.judgeView(projection.gateMessages(), GATE_START);
  }

  cursorAt(log: () => Cursor): RecordsCursor {
    const [ids, calls] = [this.ids.snapshot(), this.calls.snapshot()];
    const cursor = { version: 3 } as RecordsCursor;
    // The log's digests and the filters' base64 are made only when the cursor is read (stored, or
    // given back): a first read offers thousands of cursors, and a caller keeps few of them.
    // Made once: read again, a cursor gives the same digests, not those of the log as it stands then.
    const lazy = (key: 'log' | 'ids' | 'calls' | 'seal', make: () => unknown) =>
      Object.defineProperty(cursor, key, {
        get: () => {
          const value = make();
          Object.defineProperty(cursor, key, { value, enumerable: true, configurable: true, writable: true });
          return value;
        },
        enumerable: true,
        configurable: true,
      });
    lazy('log', log);
    cursor.session = { ...this.fields };
    cursor.pending = [...this.pending];
    lazy('ids', ids);
    lazy('calls', calls);
    cursor.gate = this.gate;
    // Last: made of the parts above, when it is read.
    lazy('seal', () => cursorSeal(cursor));
    return cursor;
  }

  private get context(): RecordContext {
    return { sessionId: this.sessionId, workspace: this.fields.workspace, title: this.fields.title };
  }

  /** The changes a batch makes to the records, from the batch on its own where it can tell them, else from a replay of the log up to it. */
  async read(batch: ResolvedBatch, replay: Projection): Promise<RecordChange[]> {
    this.rewritten = false;
    const local = this.readLocally(batch, replay);
    if (!Array.isArray(local)) return this.readByWhole(batch, local.mayRepeat);
    this.judge(batch, replay);
    return local;
  }

  /**
   * Whether Reasonix takes a new turn after this batch, from what the gate carried and the batch's
   * own replay: exact when the batch appends to the model's list or replaces it; unknown (judged at
   * the read's end) when it rewrote a message in place.
   */
  private judge({ batch, payloads }: ResolvedBatch, replay: Projection): void {
    if (batch.events.some((event, index) => LIST_RESETS.has(event.kind) && payloads[index] !== undefined)) {
      this.judgeView(replay.gateMessages(), GATE_START);
      return;
    }
    if (this.rewritten) this.gate = null;
    // Refused before what is appended, or not known: appending changes neither.
    if (this.gate === null || this.gate === 'refused') return;
    this.judgeView([...this.gate.tail, ...replay.gateMessages()], this.gate);
  }

  /**
   * The status after `view`, the model's list from `from` on, and what the gate carries on: a
   * refusal before the list's open end (its last assistant message with calls, whose results may
   * still come) stays until the list is rewritten.
   */
  private judgeView(view: readonly GateMessage[], from: GateCarry): void {
    const carry = gateCarry(view, from);
    const settled = view.slice(0, view.length - carry.tail.length);
    if (!transcriptGate(settled, from, 0).accepted) {
      this.gate = 'refused';
      this.fields = { ...this.fields, status: 'turn-refused' };
      return;
    }
    this.fields = { ...this.fields, status: transcriptGate(view, from).accepted ? 'ok' : 'turn-refused' };
    this.gate = JSON.stringify(carry.tail).length > GATE_CHARACTERS ? null : carry;
  }

  /** The calls still held, given as they stand. */
  flush(): IndexRecord[] {
    const records: IndexRecord[] = [];
    this.pending = this.pending.map((item) => {
      if (!item.held) return item;
      const record = recordOfCall(item, undefined);
      if (record) records.push(record);
      return { ...item, held: false };
    });
    return records;
  }

  /**
   * The changes of a batch told from the batch alone, or 'whole' when it changes what earlier
   * batches wrote in ways only the log before it tells (a retract, a message rewritten with calls,
   * a result for a call not waiting, an id that may be used again).
   */
  private readLocally(
    { batch, payloads }: ResolvedBatch,
    replay: Projection,
  ): RecordChange[] | { whole: true; mayRepeat: boolean } {
    const kinds = new Map(batch.events.map((event) => [event.seq, event.kind]));
    const counts = { complete: 0, upsert: 0, retract: 0, replace: 0 };
    batch.events.forEach((event, index) => {
      if (event.kind === 'message/complete') counts.complete += 1;
      else if (event.kind === 'message/upsert') counts.upsert += 1;
      else if (event.kind === 'message/retract') counts.retract += 1;
      // A replace whose payload the replay did not take leaves the transcript as it was.
      else if ((event.kind === 'history/replace' || event.kind === 'legacy/import') && payloads[index] !== undefined)
        counts.replace += 1;
    });
    if (counts.retract > 0) return { whole: true, mayRepeat: false };
    // A submission receipt may conflict with one before it (the same session and submission id), which only the
    // whole log tells: this read keeps no receipts, which a transcript replaced would not take back either.
    if (!replay.submissionKeys().next().done) return { whole: true, mayRepeat: true };
    const entries = keyedMessages(this.sessionId, replay.transcript);
    if (counts.replace > 0) {
      // The transcript is what this batch made it: every record of it, after one that takes every earlier one.
      const records = indexRecords(entries, this.context);
      this.transcript.rewrote(writtenMessages(entries));
      this.knowOnly(entries);
      this.pending = [];
      this.pendingCharacters = 0;
      for (const { calls } of pairedRecords(entries, this.context))
        for (const { recorded, result } of calls) if (!result) this.wait(recorded, false, []);
      return [{ type: 'removed', key: sessionKey(this.sessionId), sessionId: this.sessionId }, ...records];
    }
    // Each event that writes a message left one entry: an upsert of a message this batch wrote first is not told apart from a rewrite.
    const written = entries.filter(
      ({ seq }) => kinds.get(seq) === 'message/complete' || kinds.get(seq) === 'message/upsert',
    );
    if (written.length !== entries.length || written.length !== counts.complete + counts.upsert)
      return { whole: true, mayRepeat: true };
    const upserted = (seq: number) => kinds.get(seq) === 'message/upsert';
    // A message/complete of an id that may be used already may be refused; an upsert of a message that has or may
    // have had calls (any but a user's), or of a result, may move what results pair with: a call taken out leaves its
    // result answering none, and a result still to come for it answers none either.
    if (
      entries.some(
        ({ message, seq }) =>
          message.id !== undefined &&
          this.ids.mayHold(message.id) &&
          (!upserted(seq) || (message.tool_calls ?? []).length > 0 || message.role !== 'user'),
      )
    ) {
      return { whole: true, mayRepeat: true };
    }
    // A call id made before: its result may be a second one for it.
    if (
      entries.some(({ message }) =>
        (message.tool_calls ?? []).some((call) => this.calls.mayHold(flatToolCall(call).id)),
      )
    )
      return { whole: true, mayRepeat: true };
    // The results this batch writes must each complete a call waiting, or one this batch wrote before them.
    const waiting = this.pending.map((item) => ({ id: item.call.id, repeated: item.repeated === true }));
    for (const { message } of entries) {
      const callId = answers(message);
      if (callId !== undefined) {
        const at = waiting.findIndex((item) => item.id === callId);
        if (at < 0 || waiting[at]!.repeated) return { whole: true, mayRepeat: true };
        waiting.splice(at, 1);
      }
      for (const call of message.tool_calls ?? []) waiting.push({ id: flatToolCall(call).id, repeated: false });
    }
    this.transcript.wrote(writtenMessages(entries));
    this.givenThisBatch.clear();
    const changes: RecordChange[] = [];
    for (const entry of entries) {
      const { message, key } = entry;
      const rewritten = message.id !== undefined && upserted(entry.seq) && this.ids.mayHold(message.id);
      if (message.id !== undefined) this.ids.add(message.id);
      // A message rewritten in place (no calls, not a result: checked above) takes back what it said before.
      if (rewritten) {
        this.rewritten = true;
        changes.push({ type: 'removed', key, sessionId: this.sessionId });
      }
      const { said, calls } = recordsOfMessage(entry, this.context);
      if (said) changes.push(said);
      for (const call of calls) this.calls.add(call.call.id);
      const callId = answers(message);
      // A result that names no call (one that names a call not waiting was sent to the whole log above).
      const alone = callId === undefined ? loneResultRecord(entry, this.context) : undefined;
      if (alone) changes.push(alone);
      if (callId !== undefined) {
        // Checked above: a call waits for it, or did until a larger one in this batch pushed it past the
        // bounds, or it was too large to wait at all; given as it stood, its record is given again, whole.
        const at = this.pending.findIndex((item) => item.call.id === callId);
        const item = at >= 0 ? this.pending.splice(at, 1)[0] : this.givenThisBatch.get(callId);
        if (item === undefined) throw new Error(`records cursor: no call ${callId} waits for its result`);
        if (at >= 0) this.pendingCharacters -= sizeOf(item);
        else this.givenThisBatch.delete(callId);
        const record = recordOfCall(item, entry);
        if (record) changes.push(record);
      }
      for (const call of calls) this.wait(call, true, changes);
    }
    // A turn that ended gave every call of it the result it will get.
    if ([...replay.turns.values()].some((turn) => turn.status !== 'in_progress')) {
      changes.push(...this.flush());
      this.pending = [];
      this.pendingCharacters = 0;
    }
    return changes;
  }

  /** A call waits for its result; past the bounds the oldest is given as it stands and waits no more. */
  private wait(call: RecordedCall, held: boolean, changes: RecordChange[], repeated = false): void {
    const item: PendingCall = {
      call: call.call,
      base: call.base,
      held,
      ...(repeated ? { repeated: true as const } : {}),
    };
    this.pending.push(item);
    this.pendingCharacters += sizeOf(item);
    while (
      this.pending.length > MAX_PENDING ||
      (this.pendingCharacters > PENDING_CHARACTERS && this.pending.length > 0)
    ) {
      const oldest = this.pending.shift()!;
      this.pendingCharacters -= sizeOf(oldest);
      this.givenThisBatch.set(oldest.call.id, oldest);
      if (!oldest.held) continue;
      const record = recordOfCall(oldest, undefined);
      if (record) changes.push(record);
    }
  }

  /**
   * The changes of a batch told from a replay of the log up to it: the records before it and after
   * it, compared by key. A batch that may use an id again, or answer a call again, is first judged
   * by the whole log, as `records()` judges it.
   */
  private async readByWhole(resolved: ResolvedBatch, mayRepeat: boolean): Promise<RecordChange[]> {
    const { batch } = resolved;
    if (mayRepeat) await refuseAsTheWholeReplay(this.sessionDir, resolved);
    // What the reader was given so far holds the calls still held: they are given now, as `records()` before this batch gives them.
    const changes: RecordChange[] = this.flush();
    const projection = new Projection();
    let before: Map<string, IndexRecord> | undefined;
    const callsBefore = new Set<string>();
    for await (const item of readSessionEvents(this.sessionDir, { offset: 0, nextSequence: 1 })) {
      if (item.type !== 'batch') continue;
      const each = item.value.batch;
      if (each.offset === batch.offset) {
        before = this.recordsOf(projection);
        for (const { message } of projection.transcript)
          for (const call of message.tool_calls ?? []) callsBefore.add(flatToolCall(call).id);
      }
      projection.applyBatch(item.value);
      if (each.offset === batch.offset) break;
    }
    if (!before) throw new Error(`the batch at ${batch.offset} was not found again in the log`);
    const after = this.recordsOf(projection);
    for (const key of before.keys())
      if (!after.has(key)) changes.push({ type: 'removed', key, sessionId: this.sessionId });
    for (const [key, record] of after)
      if (JSON.stringify(record) !== JSON.stringify(before.get(key))) changes.push(record);
    // From here the batches after it go on from the whole transcript: its ids, and the calls this batch wrote that no result answers.
    const entries = keyedMessages(this.sessionId, projection.transcript);
    this.transcript.rewrote(writtenMessages(entries));
    this.knowOnly(entries);
    this.pending = [];
    this.pendingCharacters = 0;
    // The calls this batch wrote that no result answers wait, held, as a call read on its own batch does.
    const held = new Set<string>();
    for (const { calls, seq } of pairedRecords(entries, this.context)) {
      if (seq < batch.firstSeq) continue;
      for (const { recorded, result } of calls) {
        if (result || !after.has(recorded.base.key)) continue;
        held.add(recorded.base.key);
        this.wait(recorded, true, changes, callsBefore.has(recorded.call.id));
      }
    }
    this.judgeView(projection.gateMessages(), GATE_START);
    return changes.filter(
      (change) =>
        change.type === 'removed' ||
        !held.has(change.key) ||
        !this.pending.some((item) => item.held && item.base.key === change.key),
    );
  }

  /** The ids from here are those of these entries, the whole transcript. */
  private knowOnly(entries: readonly KeyedMessage[]): void {
    this.ids = new KnownIds(undefined, true, MESSAGE_ID_BITS);
    this.calls = new KnownIds(undefined, false, CALL_ID_BITS);
    for (const { message } of entries) {
      if (message.id !== undefined) this.ids.add(message.id);
      for (const call of message.tool_calls ?? []) this.calls.add(flatToolCall(call).id);
    }
  }

  private recordsOf(projection: Projection): Map<string, IndexRecord> {
    return new Map(
      indexRecords(keyedMessages(this.sessionId, projection.transcript), this.context).map((record) => [
        record.key,
        record,
      ]),
    );
  }
}

/**
 * The ids used so far: those of this read exactly, those before its cursor by the cursor's filter
 * (a maybe there is decided by the whole log), all of them into the filter the next cursor keeps.
 */
class KnownIds {
  private readonly read = new Set<string>();
  private readonly filter: IdFilter;
  /** Ids before this read's cursor are known only by the filter. */
  private readonly before: boolean;

  constructor(saved: SavedIdFilter | undefined, ordered: boolean, maxBits: number) {
    this.filter = saved ? IdFilter.from(saved, ordered, maxBits) : IdFilter.none(ordered, maxBits);
    this.before = saved !== undefined;
  }

  mayHold(id: string): boolean {
    return this.read.has(id) || (this.before && this.filter.mayHold(id));
  }

  add(id: string): void {
    if (this.read.has(id)) return;
    this.read.add(id);
    this.filter.add(id);
  }

  snapshot(): () => SavedIdFilter {
    return this.filter.snapshot();
  }
}

/** What a waiting call takes of a cursor's JSON (measured once, when it starts to wait). */
const sizes = new WeakMap<PendingCall, number>();
function sizeOf(item: PendingCall): number {
  let size = sizes.get(item);
  if (size === undefined) sizes.set(item, (size = JSON.stringify(item).length + 1));
  return size;
}

/** A records cursor given back, validated; refused naming the log it was given for. */
function parseRecordsCursor(given: unknown, logPath: string): RecordsCursor {
  const parsed = RecordsCursorSchema.safeParse(given);
  if (parsed.success) {
    if (parsed.data.seal !== undefined && parsed.data.seal !== cursorSeal(parsed.data))
      throw new CursorMismatchError(
        'a records cursor whose parts were not made together (its log position and the records state it carries are not those rxstore sealed): give back a cursor whole, as it was given, or read the session again from the start (no cursor)',
        { file: logPath },
      );
    return parsed.data;
  }
  const other = cursorOfAnotherKind(given);
  if (other)
    throw new CursorMismatchError(
      `${other}; read the session again from the start (no cursor) and replace what was indexed of it`,
      { file: logPath },
    );
  throw new CursorMismatchError(`not a records cursor rxstore made: ${firstIssue(parsed.error)}`, { file: logPath });
}

/**
 * What a cursor that is no records cursor of this version is, in words, when it is one rxstore made: a log
 * cursor (`readSince`'s, `batchesSince`'s), or a records cursor of an earlier version; undefined for anything else.
 */
export function cursorOfAnotherKind(given: unknown): string | undefined {
  if (CursorSchema.safeParse(given).success)
    return 'a log cursor (readSince and batchesSince give those), not a records cursor: give recordsSince the cursor recordsSince returned';
  const version =
    typeof given === 'object' && given !== null && 'version' in given
      ? (given as { version: unknown }).version
      : undefined;
  if (version !== 1 && version !== 2) return undefined;
  return `a version ${version} records cursor, from an earlier rxstore: the records it gave have no keys, so they cannot be replaced or removed by key`;
}

/**
 * A batch that may reuse an id or answer a call again, judged by a replay of the whole log: the
 * refusal is thrown when it falls at or before this batch (one after it is met when its batch is
 * read); nothing happens when the filter only matched.
 */
async function refuseAsTheWholeReplay(sessionDir: string, batch: ResolvedBatch): Promise<void> {
  // Stryker disable next-line ObjectLiteral,BooleanLiteral,StringLiteral: what the whole read keeps and whether it checks caches change its warnings, never its refusal
  const whole = await readSession(sessionDir, { caches: false, keep: 'summary' });
  if (!whole.refusal) return;
  const lastSeq = batch.batch.firstSeq + batch.batch.eventCount - 1;
  const refusedAt = whole.projection.refusedAt;
  const offset = whole.refusal.data.offset;
  const later = refusedAt !== undefined ? refusedAt > lastSeq : offset !== undefined && offset >= batch.batch.end;
  if (!later) throw whole.refusal;
}
