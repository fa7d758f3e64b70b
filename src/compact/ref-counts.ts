import { Column } from './column.js';

/**
 * How many times each ref (a string table's number for a call id, a message id) is held, and how many refs are
 * held more than once: whether anything is held twice is said at once, as rows come and go.
 */
export class RefCounts {
  private readonly counts = new Column((length) => new Int32Array(length));
  private held = 0;

  /** Refs held more than once. */
  get repeated(): number {
    return this.held;
  }

  /** One more hold of `ref` (`by` 1), or one fewer (-1). */
  count(ref: number, by: 1 | -1): void {
    this.counts.extendTo(ref + 1);
    const before = this.counts.at(ref);
    this.counts.set(ref, before + by);
    if (by === 1 && before === 1) this.held += 1;
    else if (by === -1 && before === 2) this.held -= 1;
  }

  clear(): void {
    this.counts.truncate(0);
    this.held = 0;
  }
}
