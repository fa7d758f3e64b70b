import { Column } from '../../compact/column.js';

/** The kinds of event that write messages, and so record keys, into the transcript. */
const KINDS = ['message/complete', 'message/upsert', 'history/replace', 'legacy/import'] as const;
export type RecordKeyEventKind = (typeof KINDS)[number];

/**
 * Where each event that wrote a record key another message's can equal is (sequence, offset, kind), in log
 * order (`collidingRecordKeys`: a tool result's call, a notice): a key repeated in the transcript is refused only
 * once the whole log is replayed, and the refusal then names the event that wrote it. Sixteen bytes an event,
 * in typed columns.
 */
export class RecordKeyEvents {
  private readonly seqs = new Column((length) => new Float64Array(length));
  private readonly offsets = new Column((length) => new Float64Array(length));
  private readonly kinds = new Column((length) => new Uint8Array(length));

  note(seq: number, offset: number, kind: RecordKeyEventKind): void {
    // Sequences only grow; a second note of one event (several results in it) adds nothing.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: dropping or keeping the check that one event is noted once: a second entry of the same event has the same …
    if (this.seqs.length > 0 && this.seqs.at(this.seqs.length - 1) === seq) return;
    this.seqs.push(seq);
    this.offsets.push(offset);
    this.kinds.push(KINDS.indexOf(kind));
  }

  /** The offset and kind of the event at `seq`, found by halving (sequences are in order). */
  placeOf(seq: number): { offset: number; kind: RecordKeyEventKind } | undefined {
    let low = 0;
    let high = this.seqs.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.seqs.at(middle);
      if (found === seq) return { offset: this.offsets.at(middle), kind: KINDS[this.kinds.at(middle)]! };
      // Stryker disable next-line EqualityOperator: equality returned one line before
      if (found < seq) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }
}
