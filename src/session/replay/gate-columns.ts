import { Column } from '../../compact/column.js';
import { StringTable } from '../../compact/string-table.js';
import { CallLists } from './call-lists.js';
import type { GateMessage } from './transcript-gate.js';

/** What the gate reads of a message that has no tool calls and is not a result: it passes over it. */
const PLAIN: GateMessage = { role: '' };
/** A row without facts (a message the gate passes over), in `roles`; a field a message does not have, in the others. */
const NONE = -1;

/**
 * What Reasonix's transcript gate reads of each message of a list (`gateFacts`), in typed columns:
 * a role, the call a result answers and its name as refs into string tables, and the calls as
 * `CallLists` rows. It comes back out as the `GateMessage` that went in, one row at a time, so a
 * list of any length is judged holding a few numbers a message, not an object each.
 */
export class GateColumns implements Iterable<GateMessage> {
  /** Per row: the role's ref in `labels`, `NONE` for a row without facts. */
  private readonly roles = new Column((length) => new Int32Array(length), NONE);
  /** Per row: `toolCallId`'s ref in the call-id table, `NONE` when absent. */
  private readonly toolCallIds = new Column((length) => new Int32Array(length), NONE);
  /** Per row: `name`'s ref in `labels`, `NONE` when absent. */
  private readonly names = new Column((length) => new Int32Array(length), NONE);
  /** Every column with a row per message. */
  private readonly rows = [this.roles, this.toolCallIds, this.names];
  /** Each row's calls: call-id ref, name ref in `labels`, 1 when the arguments are a JSON object. */
  private readonly calls = new CallLists();
  /** Roles and names: a few distinct strings each. */
  private readonly labels = new StringTable();

  constructor(private readonly callIds: StringTable) {}

  get length(): number {
    return this.roles.length;
  }

  /** A row at the end, holding these facts. */
  push(facts: GateMessage | null): void {
    for (const column of this.rows) column.push(NONE);
    this.calls.pushRow();
    if (facts) this.set(this.length - 1, facts);
  }

  /** Row `at` holds these facts from now on. */
  set(at: number, facts: GateMessage | null): void {
    this.roles.set(at, facts ? this.labels.intern(facts.role) : NONE);
    this.toolCallIds.set(at, facts?.toolCallId === undefined ? NONE : this.callIds.intern(facts.toolCallId));
    this.names.set(at, facts?.name === undefined ? NONE : this.labels.intern(facts.name));
    const calls = facts?.calls ?? [];
    // Most messages have no calls, before as after: nothing to write.
    if (calls.length === 0 && this.calls.count(at) === 0) return;
    this.calls.set(
      at,
      calls.map((call) => ({
        idRef: this.callIds.intern(call.id),
        nameRef: this.labels.intern(call.name),
        shape: call.object ? 1 : 0,
      })),
    );
  }

  /** The facts of row `at`, as they went in (`{ role: '' }` for a row without facts). */
  at(at: number): GateMessage {
    const role = this.roles.at(at);
    if (role === NONE) return PLAIN;
    const count = this.calls.count(at);
    const toolCallId = this.toolCallIds.at(at);
    const name = this.names.at(at);
    return {
      role: this.labels.text(role),
      ...(count > 0
        ? {
            calls: Array.from({ length: count }, (_, index) => {
              const call = this.calls.get(at, index);
              return {
                id: this.callIds.text(call.idRef),
                name: this.labels.text(call.nameRef),
                object: call.shape === 1,
              };
            }),
          }
        : {}),
      ...(toolCallId !== NONE ? { toolCallId: this.callIds.text(toolCallId) } : {}),
      ...(name !== NONE ? { name: this.labels.text(name) } : {}),
    };
  }

  /** Every row's facts in order, made as they are read: a gate walking them (as often as it likes) holds one at a time. */
  *[Symbol.iterator](): Generator<GateMessage> {
    for (let at = 0; at < this.length; at += 1) yield this.at(at);
  }

  /** Row `to` takes row `from`'s facts. */
  move(from: number, to: number): void {
    for (const column of this.rows) column.set(to, column.at(from));
    this.calls.move(from, to);
  }

  /** Keeps the first `length` rows. */
  truncate(length: number): void {
    for (const column of this.rows) column.truncate(length);
    this.calls.truncate(length);
  }
}
