import { Column } from '../../compact/column.js';
import type { StringTable } from '../../compact/string-table.js';
import { GateColumns } from './gate-columns.js';
import { answeredCall, type Message } from './message.js';
import { gateFacts, transcriptGate, type GateMessage, type GateVerdict } from './transcript-gate.js';

/**
 * The list of messages the model is sent (docs/format.md §7.5), kept as each one's id and the tool
 * call it answers — enough to find a second result for one call, which Reasonix refuses when it
 * loads the session — and each message only when asked (the model view needs it).
 */
export class ModelList {
  private readonly idRefs = new Column((length) => new Int32Array(length));
  /** Per message: the call-id ref of the call a tool result (not local-only) answers, else -1. */
  private readonly answers = new Column((length) => new Int32Array(length));
  private readonly kept: Message[] | undefined;
  /** Per message: what Reasonix's transcript gate reads of it. */
  private readonly facts: GateColumns;
  /** 1 at each call-id ref a message of the list answers; rebuilt after the list is rewritten. */
  private answered: Column<Uint8Array> | undefined;

  constructor(
    private readonly messageIds: StringTable,
    private readonly callIds: StringTable,
    keepMessages: boolean,
  ) {
    this.kept = keepMessages ? [] : undefined;
    this.facts = new GateColumns(callIds);
  }

  /** Every message as kept (whole or summarised); only for a list that keeps them. */
  get messages(): readonly Message[] {
    if (!this.kept)
      throw new Error(
        "this replay kept only an index of the messages: read the session with keep 'whole' or 'summary'",
      );
    return this.kept;
  }

  /** Whether the list holds a result for this tool call. */
  hasResultFor(toolCallId: string): boolean {
    const ref = this.callIds.find(toolCallId);
    // Stryker disable next-line ConditionalExpression: ref -1 reads the empty value 0 of the column, which is not 1
    return ref >= 0 && this.answeredRefs().at(ref) === 1;
  }

  /** Whether Reasonix takes a new turn after this list (`transcriptGate`), the system message counted as message 0. */
  gate(): GateVerdict {
    return transcriptGate(this.facts);
  }

  /** What the transcript gate reads of each message of the list. */
  gateMessages(): GateMessage[] {
    return [...this.facts];
  }

  push(message: Message): void {
    this.facts.push(null);
    // Stryker disable next-line UnaryOperator: write sets the row right after the push: overwritten before use
    this.idRefs.push(-1);
    // Stryker disable next-line UnaryOperator: write sets the row right after the push: overwritten before use
    this.answers.push(-1);
    this.kept?.push(message);
    this.write(this.idRefs.length - 1, message);
  }

  /** The message takes the place of the one with its id (or comes last); a local-only one leaves the list. */
  upsert(message: Message): void {
    // Stryker disable next-line UnaryOperator,ConditionalExpression: an upserted message always has an id (Reasonix refuses one without)
    const ref = message.id === undefined ? -1 : this.messageIds.find(message.id);
    let at = -1;
    // Stryker disable next-line ConditionalExpression: the transcript interns the id before the model list looks it up, so the ref is never -1
    if (ref >= 0)
      for (let index = 0; index < this.idRefs.length && at < 0; index += 1)
        if (this.idRefs.at(index) === ref) at = index;
    if (message.local_only) {
      // Stryker disable next-line ConditionalExpression: removing where index === -1 removes nothing
      if (at >= 0) this.removeWhere((index) => index === at);
    } else if (at >= 0) this.write(at, message);
    else this.push(message);
    this.answered = undefined;
  }

  /** Takes out the messages with these ids (a message without one counts as id ''). */
  retract(ids: readonly string[]): void {
    const refs = this.messageIds.refsOf(ids);
    // Stryker disable next-line StringLiteral: retract ids never hold '' (Reasonix refuses it)
    const withoutId = ids.includes('');
    this.removeWhere((index) => {
      const ref = this.idRefs.at(index);
      // Stryker disable next-line ConditionalExpression: retract ids never hold '', so withoutId is false like refs.has(-1)
      return ref >= 0 ? refs.has(ref) : withoutId;
    });
    this.answered = undefined;
  }

  /** The list becomes these messages. */
  replace(messages: readonly Message[]): void {
    this.removeWhere(() => true);
    for (const message of messages) this.push(message);
    this.answered = undefined;
  }

  private write(at: number, message: Message): void {
    this.idRefs.set(at, message.id === undefined ? -1 : this.messageIds.intern(message.id));
    const call = answeredCall(message);
    const answers = call === undefined ? -1 : this.callIds.intern(call);
    this.answers.set(at, answers);
    this.facts.set(at, gateFacts(message));
    if (this.kept) this.kept[at] = message;
    // Stryker disable next-line ConditionalExpression: with answers -1, a set at index -1 of a typed array is ignored
    if (answers >= 0 && this.answered) {
      this.answered.extendTo(this.callIds.size);
      this.answered.set(answers, 1);
    }
  }

  private removeWhere(removed: (index: number) => boolean): void {
    let kept = 0;
    for (let index = 0; index < this.idRefs.length; index += 1) {
      if (removed(index)) continue;
      // Stryker disable next-line ConditionalExpression: copying a row onto itself: speed only
      if (kept !== index) {
        this.idRefs.set(kept, this.idRefs.at(index));
        this.answers.set(kept, this.answers.at(index));
        this.facts.move(index, kept);
        if (this.kept) this.kept[kept] = this.kept[index]!;
      }
      kept += 1;
    }
    this.idRefs.truncate(kept);
    this.answers.truncate(kept);
    this.facts.truncate(kept);
    if (this.kept) this.kept.length = kept;
  }

  private answeredRefs(): Column<Uint8Array> {
    // Stryker disable next-line ConditionalExpression: rebuilding the answered refs each time gives the same refs: cache only
    if (!this.answered) {
      const answered = new Column((length) => new Uint8Array(length));
      answered.extendTo(this.callIds.size);
      for (let index = 0; index < this.answers.length; index += 1) {
        // Stryker disable next-line ConditionalExpression,EqualityOperator: as line 106: the index's check gives the same refusal at the same place
        const ref = this.answers.at(index);
        // Stryker disable next-line ConditionalExpression: a set at index -1 of a typed array is ignored
        if (ref >= 0) answered.set(ref, 1);
      }
      this.answered = answered;
    }
    return this.answered;
  }
}
