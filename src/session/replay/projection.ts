import { goUnquote } from '../../text/go-unquote.js';
import type { CommittedBatch, StoredEvent } from '../../codec/batch.js';
import { StringTable } from '../../compact/string-table.js';
import { answeredCall, type Message } from './message.js';
import { summaryOf } from './message-summary.js';
import { collidingRecordKeys } from './transcript-records.js';
import { ModelList } from './model-list.js';
import {
  decodePayload,
  DecodedPayloadSchemas,
  isReplayedKind,
  PayloadSchemas,
  type Payload,
  type ReplayedKind,
} from './payloads.js';
import { RecordKeyEvents, type RecordKeyEventKind } from './record-key-events.js';
import { TranscriptIndex, type IndexedTranscript, type TranscriptEntry } from './transcript-index.js';
import { TurnTable, type Turns } from './turn-table.js';
import { TurnLeftOpen } from '../reading/turn-left-open.js';
import type { GateMessage, GateVerdict } from './transcript-gate.js';
import { displayTitle, firstTyped, type DisplayTitle } from './session-title.js';
import { type SubmissionReceipt, SubmissionReceipts } from './submission-receipts.js';

export type { TranscriptEntry } from './transcript-index.js';
export type { TurnRecord, Turns } from './turn-table.js';

/** Something Reasonix 1.38.11 would refuse, although rxstore can read it (docs/format.md §7.2, §7.5). */
export interface StrictnessFinding {
  seq: number;
  offset: number;
  kind: string;
  message: string;
  /** Reasonix reports it as a damaged store; otherwise it fails with a message of its own (a submission receipt). */
  damaged: boolean;
  /**
   * Found in the transcript as a whole (a record key held twice), not at one event: Reasonix finds it when it
   * loads the transcript, from a recovery checkpoint's too, so no checkpoint takes it past.
   */
  wholeTranscript?: true;
}

/**
 * What a replay keeps of each message besides the index every replay keeps (id, role, origin,
 * flags, tool calls and the call each result answers, a few numbers a message): the message
 * `whole` (the views need it); a `summary` (role, id, origin, flags, tool-call names and whether
 * their arguments parse, the start of the text of user messages and tool results: a page's
 * first pass); or nothing beyond the `index` (inspect), so a session of any size is summarised
 * in memory that grows by tens of bytes a message.
 */
export type MessageKeeping = 'whole' | 'summary' | 'index';

/** What a replay keeps and checks as it goes. */
export interface ProjectionOptions {
  /** What is kept of each message (default `whole`). */
  keep?: MessageKeeping;
  /** With `index`, still keep the start of what a person typed in each message: a title to show. */
  previews?: boolean;
  /** With `index`, still keep what the model is sent whole (`modelMessages`): salvage's repair of it. */
  keepModel?: boolean;
  /** The title the store gives the session besides its events (a JSONL transcript's meta file). */
  title?: string;
  /** The session's id, which Reasonix names when it refuses a transcript that holds a record twice. */
  sessionId?: string;
}

/** Where an event sits in the log, and what its batch tells of it. */
interface EventPlace {
  seq: number;
  offset: number;
  kind: string;
  /** Commit time of its batch, in unix milliseconds. */
  batchTime: number;
  turnId: string | undefined;
}

/**
 * What an event of one kind does to the projection, given its payload as the kind's schema types it;
 * `decoded` when `decodePayload` accepted it (its messages are then not checked again).
 */
type Handler = (projection: Projection, value: unknown, event: EventPlace, decoded: boolean) => void;

/** A kind's handler: its payload read with the kind's schema; one that does not fit is not replayed. */
function handler<K extends ReplayedKind>(
  kind: K,
  run: (projection: Projection, payload: Payload<K>, event: EventPlace) => void,
): Handler {
  return (projection, value, event, decoded) => {
    const parsed = (decoded ? DecodedPayloadSchemas[kind] : PayloadSchemas[kind]).safeParse(value);
    if (parsed.success) run(projection, parsed.data as Payload<K>, event);
  };
}

/** The line Reasonix's host session-context message names the workspace with. */
const WORKSPACE_LINE = /Current workspace: "((?:[^"\\]|\\.)*)"/;

/** A batch with its events' payloads resolved: what `Projection.applyBatch` replays. */
export interface BatchToReplay {
  batch: CommittedBatch;
  payloads: readonly unknown[];
  /** Each payload's exact JSON bytes. */
  payloadBytes: readonly (Buffer | undefined)[];
}

/**
 * Replays committed events into the linear message lists Reasonix keeps (docs/format.md §7.5): the
 * canonical transcript (every message, compacted ones included) and the model's list (what is
 * sent to the model, with compaction checkpoints applied). Events come in through `apply`, a
 * JSONL transcript's messages through `replayTranscript`; everything else is read.
 */
export class Projection {
  /** What each kind whose content rxstore uses does (docs/format.md §7.3, §7.4); other kinds change nothing here. */
  private static readonly handlers: { readonly [K in ReplayedKind]: Handler } = {
    'message/complete': handler('message/complete', (projection, { message }, event) =>
      projection.complete(message, event),
    ),
    'message/upsert': handler('message/upsert', (projection, { message }, event) => {
      projection.noteWorkspace(message);
      const records = projection.noteRecords([message], event);
      const kept = projection.kept(message);
      projection.index.upsert(kept, event.seq, event.batchTime, records[0]!);
      projection.model.upsert(kept);
    }),
    'message/retract': handler('message/retract', (projection, { messageIds }) => {
      projection.index.retract(messageIds);
      projection.model.retract(messageIds);
    }),
    'history/replace': handler('history/replace', (projection, { messages }, event) =>
      projection.replaceHistory(messages, event),
    ),
    'legacy/import': handler('legacy/import', (projection, { messages, modelRef, modelIdentity }, event) => {
      projection.replaceHistory(messages, event);
      if (modelRef) projection.modelRefText = modelRef;
      if (modelIdentity) projection.modelIdentityText = modelIdentity;
    }),
    'model/context-replace': handler('model/context-replace', (projection, { messages }, event) =>
      projection.checkpoint(messages, event),
    ),
    compaction: handler('compaction', (projection, { messages }, event) => projection.checkpoint(messages, event)),
    'session/title': handler('session/title', (projection, { title }, event) => {
      projection.titleText = title;
      projection.titleSeq = event.seq + 1;
    }),
    'session/config': handler('session/config', (projection, { modelRef, modelIdentity }) => {
      projection.modelRefText = modelRef;
      if (modelIdentity !== undefined) projection.modelIdentityText = modelIdentity;
    }),
    'turn/end': handler('turn/end', (projection, { status }, event) => {
      const turnId = event.turnId ?? '';
      projection.turnTable.set(turnId, status, projection.turnTable.startOf(turnId) ?? event.seq);
    }),
    'assistant/attempt': handler('assistant/attempt', () => {}),
  };

  /** Message ids and tool-call ids, shared by the transcript and the model's list. */
  private readonly messageIds = new StringTable();
  private readonly callIds = new StringTable();
  private readonly index: TranscriptIndex;
  private readonly model: ModelList;
  private readonly turnTable = new TurnTable();
  /** The turn Reasonix holds open, as it holds one (`TurnLeftOpen`). */
  private readonly leftOpen = new TurnLeftOpen();
  /** Messages are kept as summaries. */
  private readonly summarise: boolean;
  /** Sequences of `model/context-replace` and `compaction` events. */
  private readonly checkpoints: number[] = [];
  private readonly findings: StrictnessFinding[] = [];
  private readonly receipts = new SubmissionReceipts();
  /** Where the events that wrote colliding record keys are: a key repeated in the transcript is refused at the one that wrote it. */
  private readonly recordKeyEvents = new RecordKeyEvents();
  /** A JSONL transcript's messages, replayed as Reasonix's migration reads them: a repeated result stops it there. */
  private replayingTranscript = false;
  /** Events replayed so far: the check for a repeated record key is made again only after more. */
  private replayed = 0;
  private repeated: { replayed: number; finding: StrictnessFinding | undefined } | undefined;
  private titleText: string | undefined;
  private readonly sessionId: string | undefined;
  private titleSeq: number | undefined;
  private modelRefText: string | undefined;
  private modelIdentityText: string | undefined;
  private workspaceText: string | undefined;
  /** The highest sequence replayed: a transcript's messages continue after it. */
  private lastSeq = 0;
  private timedCreatedAt: string | undefined;
  private timedBatchTime = 0;

  constructor(options: ProjectionOptions = {}) {
    // Stryker disable next-line StringLiteral: the keep '' is neither summary nor index: same as whole
    const keep = options.keep ?? 'whole';
    this.summarise = keep === 'summary';
    // Stryker disable next-line BooleanLiteral: every reader that reads previews passes the option
    this.index = new TranscriptIndex(this.messageIds, this.callIds, {
      messages: keep !== 'index',
      previews: options.previews ?? false,
    });
    this.model = new ModelList(this.messageIds, this.callIds, keep !== 'index' || options.keepModel === true);
    this.titleText = options.title;
    this.sessionId = options.sessionId;
  }

  /** The canonical transcript, each message as kept: not with `keep: 'index'`. */
  get transcript(): readonly TranscriptEntry[] {
    return this.index.kept;
  }

  /** The transcript as an index: what inspect, listing and the hygiene checks read, whatever is kept. */
  get transcriptIndex(): IndexedTranscript {
    return this.index;
  }

  /** The session and submission ids of the receipts taken: one taken again in a later batch needs the whole log. */
  submissionKeys(): IterableIterator<string> {
    return this.receipts.keys();
  }

  /** What the model is sent, each message as kept: not with `keep: 'index'` (unless `keepModel`). */
  get modelMessages(): readonly Message[] {
    return this.model.messages;
  }

  /**
   * Whether Reasonix takes a new turn after the model's list as replayed (its transcript gate,
   * `transcriptGate`): a session it opens may still refuse every new turn.
   */
  get newTurn(): GateVerdict {
    return this.model.gate();
  }

  /** What Reasonix's transcript gate reads of each message the model is sent. */
  gateMessages(): GateMessage[] {
    return this.model.gateMessages();
  }

  /** The session's own title (`session/title`, or the one its store gives it). */
  get title(): string | undefined {
    return this.titleText;
  }

  /**
   * What the session is called: its own title, else the start of what the person first typed, as
   * `ls` shows it. Needs the messages kept, or (with `keep: 'index'`) their previews.
   */
  get displayTitle(): DisplayTitle {
    return displayTitle(this.titleText, firstTyped(this.index)?.text);
  }

  /** The sequence after the `session/title` event that set the title. */
  get titleSequence(): number | undefined {
    return this.titleSeq;
  }

  get modelRef(): string | undefined {
    return this.modelRefText;
  }

  get modelIdentity(): string | undefined {
    return this.modelIdentityText;
  }

  /** The workspace the latest host session-context message names. */
  get workspace(): string | undefined {
    return this.workspaceText;
  }

  get turns(): Turns {
    return this.turnTable;
  }

  /** Sequences of `model/context-replace` and `compaction` events: the compaction checkpoints. */
  get compactions(): readonly number[] {
    return this.checkpoints;
  }

  /** What Reasonix would refuse at the event that holds it, in log order: the first stopped the replay. */
  get refusals(): readonly StrictnessFinding[] {
    return this.findings;
  }

  /**
   * What Reasonix would refuse, in log order: the first stopped the replay (`refusals`). With none, a record key
   * the transcript holds twice (Reasonix refuses it when it loads the transcript, so only what the whole replay
   * leaves counts: a later retract or history replace makes it good).
   */
  get strictness(): readonly StrictnessFinding[] {
    if (this.findings.length > 0) return this.findings;
    const repeated = this.repeatedRecord();
    return repeated ? [repeated] : [];
  }

  /** The sequence of the first event Reasonix would refuse: the views stop before it. */
  get refusedAt(): number | undefined {
    return this.strictness[0]?.seq;
  }

  /** Replays every event of a batch, each with its payload resolved (as a log is read: `readSessionEvents`). */
  applyBatch({ batch, payloads, payloadBytes }: BatchToReplay): void {
    this.leftOpen.batch(batch);
    batch.events.forEach((event, index) => this.apply(batch, event, payloads[index], payloadBytes[index]));
  }

  /**
   * Replays one event. `payload` is its parsed JSON (undefined when it has none or it is not
   * JSON), `bytes` what the log holds; the payload is judged as Reasonix 1.38.11 decodes it
   * (`decodePayload`). The first event it would refuse is noted and stops the replay there, so the
   * views hold what precedes it; later payloads are still judged and noted.
   */
  apply(batch: CommittedBatch, event: StoredEvent, payload: unknown, bytes?: Buffer): void {
    // Events arrive batch by batch: the commit time is parsed once per batch, not per event.
    if (batch.createdAt !== this.timedCreatedAt) {
      this.timedCreatedAt = batch.createdAt;
      this.timedBatchTime = Date.parse(batch.createdAt) || 0;
    }
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    // Past a refusal the payloads are still checked (each is reported), but nothing more is replayed.
    const halted = this.findings.length > 0;
    this.replayed += 1;
    if (event.kind === 'turn/start' && batch.turnId && !halted)
      this.turnTable.set(batch.turnId, 'in_progress', event.seq);
    if (!halted) this.leftOpen.event(batch, event.kind);
    // Stryker disable next-line ConditionalExpression: parsed is used whenever given
    const verdict = decodePayload(
      event.kind,
      bytes ?? (payload === undefined ? undefined : Buffer.from(JSON.stringify(payload))),
      payload,
    );
    if (verdict.state === 'refused') {
      this.refuse(event, verdict.reason, verdict.damaged);
      return;
    }
    if (event.kind === 'submission/accepted' && verdict.state === 'ok') {
      const refusal = this.receipts.take(verdict.value as SubmissionReceipt, batch.turnId);
      if (refusal !== undefined) this.refuse(event, refusal, false);
      return;
    }
    if (halted || !isReplayedKind(event.kind)) return;
    const place = {
      seq: event.seq,
      offset: event.offset,
      kind: event.kind,
      batchTime: this.timedBatchTime,
      turnId: batch.turnId,
    };
    this.dispatch(event.kind, verdict.state === 'ok' ? verdict.value : payload, place, verdict.state === 'ok');
  }

  /**
   * Replays a transcript's messages in order, each as the `message/complete` event Reasonix's
   * migration makes of it (the sequences continue after the last replayed, or after `seqBefore`: a
   * run of a transcript's messages replayed on its own), all committed at `createdAt`. They were
   * judged by the transcript's loader, which is lenient: only what the migration refuses — a
   * repeated id, a second result for one tool call — stops the replay.
   */
  replayTranscript(messages: readonly unknown[], createdAt: string, seqBefore = this.lastSeq): void {
    const batchTime = Date.parse(createdAt) || 0;
    this.replayingTranscript = true;
    this.lastSeq = seqBefore;
    for (const message of messages) {
      if (this.findings.length > 0) return;
      this.lastSeq += 1;
      this.replayed += 1;
      this.dispatch(
        'message/complete',
        { message },
        { seq: this.lastSeq, offset: 0, kind: 'message/complete', batchTime, turnId: undefined },
        false,
      );
    }
  }

  /** The turn Reasonix holds open at the end of what was replayed, and the turns the log finalized. */
  get turnLeftOpen(): TurnLeftOpen {
    return this.leftOpen;
  }

  /** The sequence the first open turn started at (Infinity when none is open): past it, a cut may hide what ends it. */
  openFrom(): number {
    return this.turnTable.openFrom();
  }

  private dispatch(kind: ReplayedKind, value: unknown, event: EventPlace, decoded: boolean): void {
    Projection.handlers[kind](this, value, event, decoded);
  }

  private complete(message: Message, event: EventPlace): void {
    this.noteWorkspace(message);
    // Stryker disable next-line ConditionalExpression: every message/complete has an id (Reasonix refuses one without
    if (message.id !== undefined && this.index.has(message.id)) {
      this.refuse(event, `duplicate stable message id ${JSON.stringify(message.id)}`, true);
      return;
    }
    // Reasonix's migration of a JSONL transcript stops at a second result for one tool call.
    const answers = answeredCall(message);
    if (this.replayingTranscript && answers !== undefined && this.model.hasResultFor(answers)) {
      this.refuse(event, repeatedRecordMessage(`tool:${answers}`, this.sessionId), false);
      return;
    }
    const records = this.noteRecords([message], event);
    const kept = this.kept(message);
    this.index.push(kept, event.seq, event.batchTime, records[0]!);
    if (!message.local_only) this.model.push(kept);
  }

  private replaceHistory(messages: readonly Message[], event: EventPlace): void {
    for (const message of messages) this.noteWorkspace(message);
    // One id twice in the list: the transcript and the model's list hold both (measured with Reasonix 1.38.11).
    const records = this.noteRecords(messages, event, holdsAnIdTwice(messages));
    const list = messages.map((message) => this.kept(message));
    this.index.replace(list, event.seq, event.batchTime, records);
    this.model.replace(list.filter((message) => !message.local_only));
  }

  /** A checkpoint changes only what the model is sent; the transcript keeps every message. */
  private checkpoint(messages: readonly Message[], event: EventPlace): void {
    for (const message of messages) this.noteWorkspace(message);
    // Local-only messages are never sent, a checkpoint's included (measured with Reasonix 1.38.11).
    this.model.replace(messages.filter((message) => !message.local_only).map((message) => this.kept(message)));
    this.checkpoints.push(event.seq);
  }

  /**
   * The record keys of each message that another's can equal (`collidingRecordKeys`), noting the
   * event when it writes one: a repeated key is refused at the event that wrote it.
   */
  private noteRecords(messages: readonly Message[], event: EventPlace, idTwice = false): (readonly string[])[] {
    const records = messages.map(collidingRecordKeys);
    // Stryker disable next-line ConditionalExpression: noting an event that wrote no such key: only events that wrote one are ever looked up
    if (idTwice || records.some((keys) => keys.length > 0)) {
      this.recordKeyEvents.note(event.seq, event.offset, event.kind as RecordKeyEventKind);
    }
    return records;
  }

  /** The repeated record key of the transcript as it stands, checked again only after more events. */
  private repeatedRecord(): StrictnessFinding | undefined {
    if (this.repeated?.replayed === this.replayed) return this.repeated.finding;
    const repeated = this.index.firstRepeatedRecord();
    let finding: StrictnessFinding | undefined;
    if (repeated !== undefined) {
      const seq = this.index.seq(repeated.at);
      // Stryker disable next-line ObjectLiteral: every event that wrote a colliding key was noted
      const place = this.recordKeyEvents.placeOf(seq) ?? { offset: 0, kind: 'message/complete' };
      finding = {
        seq,
        offset: place.offset,
        kind: place.kind,
        message: repeatedRecordMessage(repeated.key, this.sessionId),
        damaged: false,
        wholeTranscript: true,
      };
    }
    this.repeated = { replayed: this.replayed, finding };
    return finding;
  }

  /** The message as this projection keeps it. */
  private kept(message: Message): Message {
    return this.summarise ? summaryOf(message) : message;
  }

  private noteWorkspace(message: Message): void {
    // Stryker disable next-line ConditionalExpression: a host message whose content is not text: the string form of a list of parts holds no workspace line
    if (message.origin !== 'host' || typeof message.content !== 'string') return;
    const named = WORKSPACE_LINE.exec(message.content)?.[1];
    // Written with Go's %q: a folder named with a quote, a backslash or a line break is escaped there.
    if (named !== undefined) this.workspaceText = goUnquote(named) ?? named;
  }

  /** Notes what Reasonix would refuse (once an event); the replay stops here. */
  private refuse(event: Pick<EventPlace, 'seq' | 'offset' | 'kind'>, message: string, damaged: boolean): void {
    // Stryker disable next-line ConditionalExpression,UnaryOperator: refuse is called at most once per event
    if (this.findings.at(-1)?.seq !== event.seq)
      this.findings.push({ seq: event.seq, offset: event.offset, kind: event.kind, message, damaged });
  }
}

/** Whether two messages of the list have one id: each may show a record keyed by it (`ownRecordKey`). */
function holdsAnIdTwice(messages: readonly Message[]): boolean {
  const ids = new Set<string>();
  for (const { id } of messages) {
    if (id === undefined) continue;
    if (ids.has(id)) return true;
    ids.add(id);
  }
  return false;
}

/**
 * Reasonix's words for a transcript that holds a record key twice (`transcriptRecordKeys`), naming the session
 * when its id is known (a batch judged on its own has none).
 */
export function repeatedRecordMessage(key: string, sessionId?: string): string {
  const session = sessionId === undefined ? '' : ` for ${JSON.stringify(sessionId)}`;
  return `session: initialize transcript${session}: duplicate transcript record ${JSON.stringify(key)}`;
}
