import { Column } from '../../compact/column.js';
import { RefCounts } from '../../compact/ref-counts.js';
import { StringTable } from '../../compact/string-table.js';
import { CallLists } from './call-lists.js';
import { answeredCall, flatToolCall, isJsonObjectText, type Message } from './message.js';
import { prefixOf } from './message-summary.js';
import { ownRecordKey } from './transcript-records.js';

/** Tool results pruned by older Reasonix builds begin with this marker. */
export const LEGACY_PRUNE_MARKER = '[elided tool result — ';

/** A message of the canonical transcript, with where and when it entered the log. */
export interface TranscriptEntry {
  message: Message;
  /** Sequence of the event that last wrote it. */
  seq: number;
  /** Commit time of that event's batch, in unix milliseconds. */
  batchTime: number;
}

/** What a transcript keeps beyond its index: each message (whole or summarised), or previews of what a person typed. */
export interface TranscriptKeeping {
  messages: boolean;
  previews: boolean;
}

/** What a tool call's arguments are: none, a complete JSON object, or anything else (cut off). */
export type ArgumentsShape = 'none' | 'object' | 'other';

/** A tool call as the index keeps it: its id as a ref in the call-id table, its name and its arguments' shape. */
export interface IndexedCall {
  idRef: number;
  name: string;
  arguments: ArgumentsShape;
}

/**
 * The transcript's index as a reader sees it (what inspect, listing and the hygiene checks read):
 * each message by its position `at`, from 0 to `length - 1`.
 */
export interface IndexedTranscript {
  readonly length: number;
  /** Every message as kept (whole or summarised); throws for a replay that kept only the index. */
  readonly kept: readonly TranscriptEntry[];
  /** Whether a message with this id is in the transcript. */
  has(id: string): boolean;
  /** Where the message with this id stands (the last of two with one id a history replace wrote); -1 when none does. */
  positionOf(id: string): number;
  /** The message's role ('' when it has none). */
  role(at: number): string;
  /** The message's stable id, when it has one. */
  messageId(at: number): string | undefined;
  /** The sequence of the event that wrote the message. */
  seq(at: number): number;
  /** What a person sees: not the host's session-context messages, not local-only records. */
  seenByPerson(at: number): boolean;
  /** How many messages a person sees (`seenByPerson`). */
  seenByPersonCount(): number;
  /** A message a person typed (a user message not written by the host). */
  typedByPerson(at: number): boolean;
  /** A tool result an older Reasonix pruned. */
  pruned(at: number): boolean;
  /** The `tool_call_id` of a tool result ('' when it has none). */
  answeredCall(at: number): string;
  /** The call a tool result can complete: its `tool_call_id`, when it has one and is not a local-only record. */
  completesCall(at: number): string | undefined;
  /** A call id, by its ref in the call-id table. */
  callId(ref: number): string;
  /** The tool calls of an assistant message. */
  toolCalls(at: number): IndexedCall[];
  /** The call-id refs some tool result of the transcript answers: 1 at each. */
  answeredCalls(): Uint8Array;
  /** What the person typed in the message, whole or its start, when it is kept. */
  typedText(at: number): string | undefined;
  /** Every record key of the transcript that another message's can equal (`collidingRecordKeys`). */
  recordKeysHeld(): Set<string>;
}

const SHAPES: readonly ArgumentsShape[] = ['none', 'object', 'other'];

const HOST = 1;
const LOCAL_ONLY = 2;
/** A tool result an older Reasonix pruned. */
const PRUNED = 4;
/** A message that shows its own record, `m:<id>`, which `collidingRecordKeys` leaves out (`ownRecordKey`). */
const SHOWS_OWN = 8;

/**
 * The canonical transcript as a few numbers a message (docs/format.md §7.5): its id, role, origin
 * and flags, sequence, whom a tool result answers and its tool calls, in typed columns and string
 * tables — what inspect, listing and the hygiene checks need, in memory that grows by tens of
 * bytes a message. Each message is kept only when asked (the views need it), and a preview of
 * what a person typed only when a title is to be shown.
 */
export class TranscriptIndex implements IndexedTranscript {
  private readonly idRefs = new Column((length) => new Int32Array(length));
  private readonly roles = new Column((length) => new Int32Array(length));
  private readonly flags = new Column((length) => new Uint8Array(length));
  private readonly seqs = new Column((length) => new Float64Array(length));
  /** Per message: the call-id ref of `tool_call_id` ('' when none) for a tool result, else -1. */
  private readonly answers = new Column((length) => new Int32Array(length));
  /**
   * Per call-id ref, the results that answer it and count for `firstRepeatedRecord` (not local-only, the
   * call id not empty), and how many refs more than one answers: kept as rows are written, so that a
   * transcript with no repeated result says so at once, where a scan after every event of a write made a
   * migration of 300,000 messages take minutes.
   */
  private readonly answerCounts = new RefCounts();
  /**
   * Per message: -1 when the only record key it can share is its result's call (`answers`), else its
   * colliding record keys (`collidingRecordKeys`: notices, messages without an id) as a ref in `recordLists`.
   */
  private readonly recordRefs = new Column((length) => new Int32Array(length), -1);
  private readonly recordLists = new StringTable();
  /** How many rows hold each colliding key that is not a call's, and how many such keys more than one holds. */
  private readonly otherCounts = new Map<string, number>();
  private repeatedOthers = 0;
  /**
   * Per message-id ref, the rows that show their own record `m:<id>` (`SHOWS_OWN`), and how many refs more
   * than one row shows: one id twice comes only from a list a history replace wrote, where Reasonix keeps both.
   */
  private readonly ownCounts = new RefCounts();
  /** Per message: its preview's ref in `previewTexts`, -1 when it has none; only when previews are kept. */
  private readonly previewRefs: Column<Int32Array> | undefined;
  private readonly previewTexts: StringTable | undefined;
  /** Every column with a row per message. */
  private readonly rows: Column<Int32Array | Uint8Array | Float64Array>[];
  /** Each message's tool calls, by row. */
  private readonly calls = new CallLists();
  /** Message-id ref → where that message is, -1 when it is not in the transcript. */
  private readonly positions = new Column((length) => new Int32Array(length), -1);
  /** Roles and tool names: a few distinct strings each. */
  private readonly labelRefs = new Map<string, number>();
  // Stryker disable next-line ArrayDeclaration: no label ref points at the pre-filled slot 0: refs are the positions pushed
  private readonly labels: string[] = [];
  private readonly entries: TranscriptEntry[] | undefined;

  constructor(
    private readonly messageIds: StringTable,
    private readonly callIds: StringTable,
    keeping: TranscriptKeeping,
  ) {
    this.entries = keeping.messages ? [] : undefined;
    // A preview is held as its bytes in a string table, not a string each: it is kept for every message a person typed.
    if (!keeping.messages && keeping.previews) {
      this.previewRefs = new Column((length) => new Int32Array(length), -1);
      this.previewTexts = new StringTable();
    }
    this.rows = [this.idRefs, this.roles, this.flags, this.seqs, this.answers, this.recordRefs];
    if (this.previewRefs) this.rows.push(this.previewRefs);
  }

  get length(): number {
    return this.idRefs.length;
  }

  /** Every message as kept (whole or summarised); only for a transcript that keeps them. */
  get kept(): readonly TranscriptEntry[] {
    if (!this.entries)
      throw new Error(
        "this replay kept only an index of the messages: read the session with keep 'whole' or 'summary'",
      );
    return this.entries;
  }

  /** Whether a message with this id is in the transcript. */
  has(id: string): boolean {
    return this.positionOf(id) >= 0;
  }

  /** Adds a message; `records` are the colliding record keys of the message as written (`collidingRecordKeys`). */
  push(message: Message, seq: number, batchTime: number, records: readonly string[]): void {
    const at = this.length;
    for (const column of this.rows) column.push(0);
    // A new row answers no call and holds no record key until it is written.
    this.answers.set(at, -1);
    this.recordRefs.set(at, -1);
    this.calls.pushRow();
    // Stryker disable next-line ObjectLiteral: write sets the entry right after the push: overwritten before use
    this.entries?.push({ message, seq, batchTime });
    this.write(at, message, seq, batchTime, records);
  }

  /** The message takes the place of the one with its id, or comes last when there is none. */
  upsert(message: Message, seq: number, batchTime: number, records: readonly string[]): void {
    // Stryker disable next-line UnaryOperator,ConditionalExpression: an upserted message always has an id (Reasonix refuses one without)
    const at = message.id === undefined ? -1 : this.positionOf(message.id);
    if (at < 0) this.push(message, seq, batchTime, records);
    else this.write(at, message, seq, batchTime, records);
  }

  /** Takes out the messages with these ids (a message without one counts as id ''). */
  retract(ids: readonly string[]): void {
    const refs = this.messageIds.refsOf(ids);
    // Stryker disable next-line StringLiteral: retract ids never hold '' (Reasonix refuses it)
    const withoutId = ids.includes('');
    let kept = 0;
    for (let at = 0; at < this.length; at += 1) {
      const ref = this.idRefs.at(at);
      // Stryker disable next-line ConditionalExpression: retract ids never hold '', so withoutId is false like refs.has(-1)
      if (ref >= 0 ? refs.has(ref) : withoutId) {
        if (ref >= 0) this.positions.set(ref, -1);
        continue;
      }
      // Stryker disable next-line ConditionalExpression: moving a row onto itself: speed only
      if (kept !== at) this.move(at, kept);
      // The first row of an id (a history may hold one twice) is where it was met first: at `kept` or before.
      // Stryker disable next-line ConditionalExpression: a set at index -1 of a typed array is ignored
      if (ref >= 0 && this.positions.at(ref) >= kept) this.positions.set(ref, kept);
      kept += 1;
    }
    this.truncate(kept);
  }

  /** The transcript becomes these messages; `records[i]` are the colliding record keys of `messages[i]`. */
  replace(messages: readonly Message[], seq: number, batchTime: number, records: readonly (readonly string[])[]): void {
    for (let at = 0; at < this.length; at += 1) {
      const ref = this.idRefs.at(at);
      if (ref >= 0) this.positions.set(ref, -1);
    }
    this.truncate(0);
    messages.forEach((message, at) => this.push(message, seq, batchTime, records[at] ?? []));
  }

  role(at: number): string {
    // Stryker disable next-line StringLiteral: every row's role ref names a pushed label
    return this.labels[this.roles.at(at)] ?? '';
  }

  messageId(at: number): string | undefined {
    const ref = this.idRefs.at(at);
    return ref < 0 ? undefined : this.messageIds.text(ref);
  }

  seq(at: number): number {
    return this.seqs.at(at);
  }

  /** What a person sees: not the host's session-context messages, not local-only records. */
  seenByPerson(at: number): boolean {
    return (this.flags.at(at) & (HOST | LOCAL_ONLY)) === 0;
  }

  seenByPersonCount(): number {
    let count = 0;
    for (let at = 0; at < this.length; at += 1) if (this.seenByPerson(at)) count += 1;
    return count;
  }

  /** A message a person typed (a user message not written by the host). */
  typedByPerson(at: number): boolean {
    return this.role(at) === 'user' && (this.flags.at(at) & HOST) === 0;
  }

  /** A tool result an older Reasonix pruned. */
  pruned(at: number): boolean {
    return (this.flags.at(at) & PRUNED) !== 0;
  }

  /** The `tool_call_id` of a tool result ('' when it has none). */
  answeredCall(at: number): string {
    const ref = this.answers.at(at);
    // Stryker disable next-line ConditionalExpression: the call-id table reads ref -1 as ''
    return ref < 0 ? '' : this.callIds.text(ref);
  }

  completesCall(at: number): string | undefined {
    const ref = this.completedCallRef(at);
    return ref < 0 ? undefined : this.callIds.text(ref);
  }

  /** A call id, by its ref in the call-id table. */
  callId(ref: number): string {
    return this.callIds.text(ref);
  }

  toolCalls(at: number): IndexedCall[] {
    return Array.from({ length: this.calls.count(at) }, (_, index) => {
      const { idRef, nameRef, shape } = this.calls.get(at, index);
      // Stryker disable next-line StringLiteral: every call's shape is 0, 1 or 2
      return { idRef, name: this.labels[nameRef] ?? '', arguments: SHAPES[shape] ?? 'other' };
    });
  }

  /** The call-id refs some tool result of the transcript answers: 1 at each. */
  answeredCalls(): Uint8Array {
    const answered = new Uint8Array(this.callIds.size);
    for (let at = 0; at < this.length; at += 1) {
      const ref = this.answers.at(at);
      // Stryker disable next-line ConditionalExpression: a set at index -1 of a typed array is ignored
      if (ref >= 0) answered[ref] = 1;
    }
    return answered;
  }

  /**
   * The first record key the transcript holds twice, with where the second stands, undefined when
   * there is none: Reasonix keys the records it shows (`transcriptRecordKeys`) and refuses to open a
   * transcript that repeats one — a second result for a call, two messages without an id.
   */
  firstRepeatedRecord(): { at: number; key: string } | undefined {
    if (this.answerCounts.repeated === 0 && this.repeatedOthers === 0 && this.ownCounts.repeated === 0)
      return undefined;
    const answered = new Uint8Array(this.callIds.size);
    const seen = new Set<string>();
    const repeated = (key: string): boolean => {
      if (!key.startsWith('tool:')) return seen.size === seen.add(key).size;
      const ref = this.callIds.find(key.slice('tool:'.length));
      if (answered[ref] === 1) return true;
      answered[ref] = 1;
      return false;
    };
    for (let at = 0; at < this.length; at += 1) {
      // A message's own record comes before its notices, as Reasonix keys them (`transcriptRecordKeys`).
      const own = this.flags.at(at) & SHOWS_OWN ? `m:${this.messageId(at)}` : undefined;
      if (own !== undefined && repeated(own)) return { at, key: own };
      for (const key of this.recordKeys(at)) if (repeated(key)) return { at, key };
    }
    return undefined;
  }

  recordKeysHeld(): Set<string> {
    const held = new Set<string>();
    for (let at = 0; at < this.length; at += 1) for (const key of this.recordKeys(at)) held.add(key);
    return held;
  }

  /**
   * What the person typed in the message at `at`: `raw_content`, else its text — as the message
   * is kept, else the start of it, when previews are kept.
   */
  typedText(at: number): string | undefined {
    if (this.entries) {
      const message = this.entries[at]!.message;
      // Stryker disable next-line ConditionalExpression: a null content never reaches the index: Go's decoding leaves a null string unset
      return message.raw_content || (typeof message.content === 'string' ? message.content : undefined);
    }
    if (!this.previewRefs || !this.previewTexts)
      throw new Error('this replay kept no previews: read the session with previews');
    const ref = this.previewRefs.at(at);
    return ref < 0 ? undefined : this.previewTexts.text(ref);
  }

  positionOf(id: string): number {
    const ref = this.messageIds.find(id);
    // Stryker disable next-line ConditionalExpression: positions reads -1 at index -1 (its empty value)
    return ref < 0 ? -1 : this.positions.at(ref);
  }

  /** Writes what the index keeps of a message into row `at`. */
  private write(at: number, message: Message, seq: number, batchTime: number, records: readonly string[]): void {
    // What the row answered is no longer counted: it is written over.
    this.countRecords(at, -1);
    const idRef = message.id === undefined ? -1 : this.messageIds.intern(message.id);
    // A message found by its id is the first that has it (`upsert` writes over that one).
    // Stryker disable next-line ConditionalExpression: extendTo and a set at index -1 change nothing a reader sees
    if (idRef >= 0) {
      this.positions.extendTo(this.messageIds.size);
      const first = this.positions.at(idRef);
      if (first < 0 || first > at) this.positions.set(idRef, at);
    }
    this.idRefs.set(at, idRef);
    this.roles.set(at, this.label(message.role));
    // Stryker disable next-line StringLiteral: neither '' nor the replacement starts with the marker
    const pruned = message.role === 'tool' && (message.content ?? '').startsWith(LEGACY_PRUNE_MARKER);
    this.flags.set(
      at,
      (message.origin === 'host' ? HOST : 0) |
        (message.local_only ? LOCAL_ONLY : 0) |
        (pruned ? PRUNED : 0) |
        (ownRecordKey(message) === undefined ? 0 : SHOWS_OWN),
    );
    this.seqs.set(at, seq);
    this.answers.set(at, message.role === 'tool' ? this.callIds.intern(message.tool_call_id ?? '') : -1);
    this.recordRefs.set(at, this.ordinary(message, records) ? -1 : this.recordLists.intern(JSON.stringify(records)));
    this.countRecords(at, 1);
    this.calls.set(
      at,
      (message.tool_calls ?? []).map(flatToolCall).map((call) => ({
        idRef: this.callIds.intern(call.id),
        nameRef: this.label(call.name),
        shape: call.arguments === '' ? 0 : isJsonObjectText(call.arguments) ? 1 : 2,
      })),
    );
    if (this.entries) this.entries[at] = { message, seq, batchTime };
    if (this.previewRefs && this.previewTexts) {
      const preview = this.typedByPerson(at) ? previewOf(message) : undefined;
      this.previewRefs.set(at, preview === undefined ? -1 : this.previewTexts.intern(preview));
    }
  }

  private move(from: number, to: number): void {
    for (const column of this.rows) column.set(to, column.at(from));
    this.calls.move(from, to);
    if (this.entries) this.entries[to] = this.entries[from]!;
  }

  private truncate(length: number): void {
    for (const column of this.rows) column.truncate(length);
    this.calls.truncate(length);
    if (this.entries) this.entries.length = length;
    // Rows were taken out or moved (a retract, a replace): counted again, rarely and once.
    this.answerCounts.clear();
    this.otherCounts.clear();
    this.repeatedOthers = 0;
    this.ownCounts.clear();
    for (let at = 0; at < length; at += 1) this.countRecords(at, 1);
  }

  /** Adds the record keys of the row at `at` that another row's can equal to the counts (`by` 1), or takes them out (-1). */
  private countRecords(at: number, by: 1 | -1): void {
    if (this.flags.at(at) & SHOWS_OWN) this.ownCounts.count(this.idRefs.at(at), by);
    const ref = this.recordRefs.at(at);
    if (ref < 0) {
      const call = this.completedCallRef(at);
      if (call >= 0) this.answerCounts.count(call, by);
      return;
    }
    for (const key of this.recordKeys(at)) {
      if (key.startsWith('tool:')) this.answerCounts.count(this.callIds.intern(key.slice('tool:'.length)), by);
      else this.countOther(key, by);
    }
  }

  private countOther(key: string, by: 1 | -1): void {
    const before = this.otherCounts.get(key) ?? 0;
    if (before + by === 0) this.otherCounts.delete(key);
    else this.otherCounts.set(key, before + by);
    if (by === 1 && before === 1) this.repeatedOthers += 1;
    else if (by === -1 && before === 2) this.repeatedOthers -= 1;
  }

  /** The row's record keys that another row's can equal, in order. */
  private recordKeys(at: number): readonly string[] {
    const ref = this.recordRefs.at(at);
    if (ref >= 0) return JSON.parse(this.recordLists.text(ref)) as string[];
    const call = this.completesCall(at);
    return call === undefined ? [] : [`tool:${call}`];
  }

  /** The call-id ref of the call the row's result completes (`completesCall`), -1 when it completes none. */
  private completedCallRef(at: number): number {
    const ref = this.answers.at(at);
    if (ref < 0 || (this.flags.at(at) & LOCAL_ONLY) !== 0 || ref === this.callIds.find('')) return -1;
    return ref;
  }

  /** Whether a message's colliding record keys are only its result's call, as the `answers` column tells. */
  private ordinary(message: Message, records: readonly string[]): boolean {
    const call = answeredCall(message);
    return call === undefined ? records.length === 0 : records.length === 1 && records[0] === `tool:${call}`;
  }

  private label(text: string): number {
    let ref = this.labelRefs.get(text);
    // Stryker disable next-line ConditionalExpression: a new label for a name already met reads the same name: memory only
    if (ref === undefined) {
      ref = this.labels.length;
      this.labelRefs.set(text, ref);
      this.labels.push(text);
    }
    return ref;
  }
}

/** The start of what a person typed, as a summary keeps it. */
function previewOf(message: Message): string | undefined {
  // Stryker disable next-line ConditionalExpression: a null content never reaches the index: Go's decoding leaves a null string unset
  const text = message.raw_content || (typeof message.content === 'string' ? message.content : undefined);
  return text === undefined ? undefined : prefixOf(text);
}
