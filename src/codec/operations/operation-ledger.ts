import { StringTable } from '../../compact/string-table.js';

const HEX_SHA256 = /^[0-9a-f]{64}$/;
const DIGEST_BYTES = 32;
/** Digests per chunk: chunks are added, never copied, as the log goes on. */
const CHUNK_DIGESTS = 8192;

/**
 * The operations a log holds, operationId → operationHash, and the rule they follow (docs/format.md
 * §5.3): an id may come again only with the same hash, an idempotent retry; with another, the log
 * is damaged (`conflicting operation`). Readers, validation and writers all judge by it.
 *
 * A reader keeps it to the end of the log, so it is compact: the ids in a string table, each hash
 * as its 32 bytes (a hash not in Reasonix's hex form kept as found) — tens of bytes a batch, not
 * two heap strings and a map entry.
 */
export class OperationLedger {
  private readonly ids = new StringTable();
  private readonly digests: Buffer[] = [];
  /** Hashes that are not 64 lowercase hex digits, by the ref of their operation id. */
  private readonly unusual = new Map<number, string>();

  /** A ledger of its own, holding what `from` holds: validation tries batches on a copy. */
  constructor(from?: OperationLedger) {
    if (!from) return;
    // Stryker disable next-line EqualityOperator: one step past the last id copies undefined under an id no lookup asks for
    for (let ref = 0; ref < from.ids.size; ref += 1) this.set(from.ids.text(ref), from.hashOf(ref));
  }

  /**
   * Admits one more operation, unless its id is held with another hash: then that hash is
   * returned (a conflict) and nothing is admitted.
   */
  admit(operationId: string, operationHash: string): string | undefined {
    const ref = this.ids.find(operationId);
    if (ref >= 0) {
      const prior = this.hashOf(ref);
      return prior === operationHash ? undefined : prior;
    }
    this.set(operationId, operationHash);
    return undefined;
  }

  private hashOf(ref: number): string {
    const { chunk, start } = this.placeOf(ref);
    return this.unusual.get(ref) ?? chunk.toString('hex', start, start + DIGEST_BYTES);
  }

  private set(operationId: string, operationHash: string): void {
    const ref = this.ids.intern(operationId);
    while (this.digests.length * CHUNK_DIGESTS <= ref) this.digests.push(Buffer.alloc(CHUNK_DIGESTS * DIGEST_BYTES));
    // Stryker disable next-line ConditionalExpression: a usual hash kept as unusual too: the same hash is given back either way, only memory changes
    if (!HEX_SHA256.test(operationHash)) this.unusual.set(ref, operationHash);
    else {
      const { chunk, start } = this.placeOf(ref);
      chunk.write(operationHash, start, 'hex');
    }
  }

  private placeOf(ref: number): { chunk: Buffer; start: number } {
    return { chunk: this.digests[Math.floor(ref / CHUNK_DIGESTS)]!, start: (ref % CHUNK_DIGESTS) * DIGEST_BYTES };
  }
}
