import { Column } from '../../compact/column.js';

/** A tool call as a row list keeps it: its id and name as refs, and a small number its owner gives a meaning. */
export interface StoredCall {
  idRef: number;
  nameRef: number;
  /** What the owner knows of the call's arguments, as a number from 0 to 255. */
  shape: number;
}

/**
 * The tool calls of each row of a list of messages, end to end in typed columns: a few bytes a
 * call and nothing for the collector to trace. A row rewritten, moved onto or cut off leaves its
 * calls dead where they stand; once the dead outnumber the living (and are more than a thousand)
 * the living are copied into fresh columns, so what is held follows the calls the rows point to,
 * not every call ever written.
 */
export class CallLists {
  private readonly starts = new Column((length) => new Int32Array(length));
  private readonly counts = new Column((length) => new Int32Array(length));
  private calls = new CallColumns();
  /** Calls some row points to. */
  private live = 0;

  /** How many rows there are. */
  get rows(): number {
    return this.counts.length;
  }

  /** A row with no calls, at the end. */
  pushRow(): void {
    this.starts.push(0);
    this.counts.push(0);
  }

  /** Row `row` holds these calls from now on; what it held before is dead. */
  set(row: number, calls: readonly StoredCall[]): void {
    this.live -= this.counts.at(row);
    this.starts.set(row, this.calls.length);
    this.counts.set(row, calls.length);
    for (const call of calls) this.calls.push(call.idRef, call.nameRef, call.shape);
    this.live += calls.length;
    this.compactWhenMostlyDead();
  }

  /** How many calls row `row` holds. */
  count(row: number): number {
    return this.counts.at(row);
  }

  /** Call `index` of row `row`. */
  get(row: number, index: number): StoredCall {
    return this.calls.get(this.starts.at(row) + index);
  }

  /** Row `to` takes row `from`'s calls (its own are dead); `from` is left with none. */
  move(from: number, to: number): void {
    this.live -= this.counts.at(to);
    this.starts.set(to, this.starts.at(from));
    this.counts.set(to, this.counts.at(from));
    this.counts.set(from, 0);
  }

  /** Keeps the first `rows` rows; the calls of the rest are dead. */
  truncate(rows: number): void {
    for (let row = rows; row < this.rows; row += 1) this.live -= this.counts.at(row);
    this.starts.truncate(rows);
    this.counts.truncate(rows);
    if (this.live === 0) this.calls = new CallColumns();
    else this.compactWhenMostlyDead();
  }

  private compactWhenMostlyDead(): void {
    const dead = this.calls.length - this.live;
    if (dead > 1024 && dead > this.calls.length / 2) this.compact();
  }

  /** Copies the calls rows still point to into fresh columns, in row order. */
  private compact(): void {
    const living = new CallColumns();
    for (let row = 0; row < this.rows; row += 1) {
      const start = this.starts.at(row);
      this.starts.set(row, living.length);
      for (let index = 0; index < this.counts.at(row); index += 1) living.copy(this.calls, start + index);
    }
    this.calls = living;
  }
}

/** Calls end to end: id ref, name ref and shape. */
class CallColumns {
  private readonly ids = new Column((length) => new Int32Array(length));
  private readonly names = new Column((length) => new Int32Array(length));
  private readonly shapes = new Column((length) => new Uint8Array(length));

  get length(): number {
    return this.ids.length;
  }

  push(idRef: number, nameRef: number, shape: number): void {
    this.ids.push(idRef);
    this.names.push(nameRef);
    this.shapes.push(shape);
  }

  copy(from: CallColumns, index: number): void {
    this.push(from.ids.at(index), from.names.at(index), from.shapes.at(index));
  }

  get(index: number): StoredCall {
    return { idRef: this.ids.at(index), nameRef: this.names.at(index), shape: this.shapes.at(index) };
  }
}
