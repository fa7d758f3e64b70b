import { getRandomValues } from 'node:crypto';
import { Column } from '../../compact/column.js';
import { BatchChangedError } from '../../errors/index.js';

/** The operation a batch's `batch/begin` record names. */
export interface RecordedOperation {
  operationId: string;
  operationHash: string;
}

/** Reads back the operation of the batch whose `batch/begin` frame starts at `batchOffset` of the log. */
export type RecallOperation = (batchOffset: number) => Promise<RecordedOperation>;

/** A 64-bit fingerprint of an operation id, as two 32-bit halves. */
export type Fingerprint = (operationId: string) => readonly [low: number, high: number];

/**
 * The operations of a log read from a file, and the rule they follow (docs/format.md §5.3): an id
 * may come again only with the same hash. What `OperationLedger` keeps exactly — every id and hash,
 * about a hundred bytes a batch, the largest thing a reader holds to the end of a long log — this
 * keeps as a 64-bit fingerprint of the id and the offset of its batch: 16 bytes a batch. When a
 * fingerprint comes again (a retried operation, or two ids that happen to share one), the earlier
 * batch's id and hash are read back from the log, so every answer is still exact.
 */
export class RecalledOperationLedger {
  private readonly lows = new Column((length) => new Int32Array(length));
  private readonly highs = new Column((length) => new Int32Array(length));
  private readonly offsets = new Column((length) => new Float64Array(length));
  /** Open addressing: ref + 1 in each used slot, 0 in an empty one. */
  private slots = new Int32Array(64);

  constructor(
    private readonly recall: RecallOperation,
    private readonly file?: string,
    private readonly fingerprint: Fingerprint = seededFingerprint(),
  ) {}

  /**
   * Admits the operation of the batch at `batchOffset`, unless its id is held with another hash:
   * then that hash is returned (a conflict) and nothing is admitted. Answers at once for an id
   * whose fingerprint is new (nearly every one); otherwise once the earlier batches are read back.
   */
  admit(
    operationId: string,
    operationHash: string,
    batchOffset: number,
  ): string | undefined | Promise<string | undefined> {
    const [low, high] = this.fingerprint(operationId);
    if (this.matches(low, high).length === 0) {
      this.add(low, high, batchOffset);
      return undefined;
    }
    return this.admitRecalled(operationId, operationHash, batchOffset, low, high);
  }

  private async admitRecalled(
    operationId: string,
    operationHash: string,
    batchOffset: number,
    low: number,
    high: number,
  ): Promise<string | undefined> {
    for (const ref of this.matches(low, high)) {
      const offset = this.offsets.at(ref);
      const prior = await this.recall(offset);
      const [priorLow, priorHigh] = this.fingerprint(prior.operationId);
      if (priorLow !== low || priorHigh !== high) {
        // The batch was verified when it was read: its bytes have been rewritten since.
        throw new BatchChangedError(this.file, offset);
      }
      if (prior.operationId === operationId)
        return prior.operationHash === operationHash ? undefined : prior.operationHash;
    }
    this.add(low, high, batchOffset);
    return undefined;
  }

  /** The refs of the operations held with this fingerprint, in the order they were admitted. */
  private matches(low: number, high: number): number[] {
    const found: number[] = [];
    const mask = this.slots.length - 1;
    for (let slot = low & mask; this.slots[slot] !== 0; slot = (slot + 1) & mask) {
      const ref = this.slots[slot]! - 1;
      // Stryker disable next-line LogicalOperator,ConditionalExpression: a looser match only adds candidates, each read back and compared by its id: speed only
      if (this.lows.at(ref) === low && this.highs.at(ref) === high) found.push(ref);
    }
    // Stryker disable next-line MethodExpression,ArithmeticOperator,ArrowFunction: the order of candidates matters only with two of them (a collision), and each is read back and compared
    return found.sort((a, b) => a - b);
  }

  private add(low: number, high: number, batchOffset: number): void {
    const ref = this.lows.length;
    this.lows.push(low);
    this.highs.push(high);
    this.offsets.push(batchOffset);
    // At most two thirds full: probes stay short.
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: when the table grows: speed and memory only
    if ((ref + 1) * 3 > this.slots.length * 2) this.rehash(this.slots.length * 2);
    else this.place(this.slots, ref);
  }

  private rehash(length: number): void {
    this.slots = new Int32Array(length);
    // Stryker disable next-line EqualityOperator: one step past the end places an id that is not there into a free slot no lookup reaches
    for (let ref = 0; ref < this.lows.length; ref += 1) this.place(this.slots, ref);
  }

  private place(slots: Int32Array, ref: number): void {
    const mask = slots.length - 1;
    let slot = this.lows.at(ref) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = ref + 1;
  }
}

/**
 * Two 32-bit hashes of the id's UTF-16 code units, each from a seed drawn per ledger: a log
 * cannot be made to collide on purpose (collisions cost a read-back each, never a wrong answer).
 */
function seededFingerprint(): Fingerprint {
  const [seedLow, seedHigh] = getRandomValues(new Int32Array(2));
  return (text) => {
    let low = seedLow! ^ 0x811c9dc5;
    let high = seedHigh! ^ 0x5bd1e995;
    // Stryker disable next-line EqualityOperator: one step past the end of the text hashes NaN as 0 in the same way for every id
    for (let at = 0; at < text.length; at += 1) {
      const unit = text.charCodeAt(at);
      low = Math.imul(low ^ unit, 0x01000193);
      high = Math.imul(high ^ unit, 0x5bd1e995);
      high ^= high >>> 15;
    }
    return [finalMix(low ^ text.length), finalMix(high)];
  };
}

/** murmur3's finaliser: every input bit moves every output bit, so the low bits index the table well. */
function finalMix(hash: number): number {
  let mixed = hash ^ (hash >>> 16);
  mixed = Math.imul(mixed, 0x85ebca6b);
  mixed ^= mixed >>> 13;
  mixed = Math.imul(mixed, 0xc2b2ae35);
  return mixed ^ (mixed >>> 16);
}
