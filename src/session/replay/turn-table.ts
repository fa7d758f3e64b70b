import { Column } from '../../compact/column.js';
import { StringTable } from '../../compact/string-table.js';

/** Where a turn stands: running until its turn/end says how it ended. */
export type TurnStatus = 'in_progress' | 'completed' | 'failed' | 'interrupted';
const TURN_STATUSES: readonly TurnStatus[] = ['in_progress', 'completed', 'failed', 'interrupted'];

/** One turn as its turn/start and turn/end events tell it. */
export interface TurnRecord {
  turnId: string;
  status: TurnStatus;
  startSeq: number;
}

/** The turns of a replay, in the order first met, as a reader sees them. */
export interface Turns {
  readonly size: number;
  get(turnId: string): TurnRecord | undefined;
  values(): IterableIterator<TurnRecord>;
}

/**
 * The turns of a replay, a few bytes each beyond the id: a long session has tens of thousands.
 * A turn's ref in the id table is its row, so rows keep the order turns were first met.
 */
export class TurnTable implements Turns {
  private readonly ids = new StringTable();
  private readonly statuses = new Column((length) => new Uint8Array(length));
  private readonly starts = new Column((length) => new Float64Array(length));

  get size(): number {
    return this.ids.size;
  }

  get(turnId: string): TurnRecord | undefined {
    const row = this.ids.find(turnId);
    return row < 0 ? undefined : this.record(row);
  }

  *values(): IterableIterator<TurnRecord> {
    for (let row = 0; row < this.size; row += 1) yield this.record(row);
  }

  /** Records a turn's status and where it started; a turn met before keeps its place. */
  set(turnId: string, status: TurnStatus, startSeq: number): void {
    const row = this.ids.intern(turnId);
    // Stryker disable next-line ArithmeticOperator: memory only: the index compacts dead tool-call slots (or sizes a column) sooner or later
    this.statuses.extendTo(row + 1);
    // Stryker disable next-line ArithmeticOperator: memory only: the index compacts dead tool-call slots (or sizes a column) sooner or later
    this.starts.extendTo(row + 1);
    this.statuses.set(row, TURN_STATUSES.indexOf(status));
    this.starts.set(row, startSeq);
  }

  /** Where the turn started, undefined for a turn not met. */
  startOf(turnId: string): number | undefined {
    const row = this.ids.find(turnId);
    return row < 0 ? undefined : this.starts.at(row);
  }

  /** The sequence the first turn still open started at; Infinity when none is open. */
  openFrom(): number {
    let from = Number.POSITIVE_INFINITY;
    for (let row = 0; row < this.size; row += 1)
      if (this.statuses.at(row) === 0) from = Math.min(from, this.starts.at(row));
    return from;
  }

  private record(row: number): TurnRecord {
    // Stryker disable next-line StringLiteral: statuses written are always one of the four (turn/end's status is checked)
    return {
      turnId: this.ids.text(row),
      status: TURN_STATUSES[this.statuses.at(row)] ?? 'in_progress',
      startSeq: this.starts.at(row),
    };
  }
}
