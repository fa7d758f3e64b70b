/** The typed arrays a column can hold its numbers in. */
type Storage = Int32Array | Uint8Array | Float64Array | Uint32Array;

/**
 * A growing list of numbers in one typed array: what a replay keeps per message or per string
 * costs a few bytes, and the collector has nothing to trace. It doubles when full.
 */
export class Column<S extends Storage> {
  private data: S;
  private used = 0;

  constructor(
    private readonly make: (length: number) => S,
    /** What a slot holds before anything is written to it (grown or not yet pushed). */
    private readonly empty = 0,
  ) {
    // Eight slots: a Float64Array of them (64 bytes) still lives on the heap; a larger one is allocated
    // outside it, which costs microseconds — and a replay of one batch makes dozens of columns.
    this.data = make(8);
    if (empty !== 0) this.data.fill(empty);
  }

  get length(): number {
    return this.used;
  }

  at(index: number): number {
    return this.data[index] ?? this.empty;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  push(value: number): void {
    this.reserve(this.used + 1);
    this.data[this.used] = value;
    this.used += 1;
  }

  /** Makes the column at least `length` long, new slots holding the empty value. */
  extendTo(length: number): void {
    this.reserve(length);
    if (length > this.used) this.used = length;
  }

  /** Keeps the first `length` values; the rest are emptied for the next push. */
  truncate(length: number): void {
    if (length >= this.used) return;
    this.data.fill(this.empty, length, this.used);
    this.used = length;
  }

  private reserve(length: number): void {
    if (length <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < length) size *= 2;
    const bigger = this.make(size);
    bigger.set(this.data);
    if (this.empty !== 0) bigger.fill(this.empty, this.data.length);
    this.data = bigger;
  }
}
