import { StringTable } from './string-table.js';

const HEX_SHA256 = /^[0-9a-f]{64}$/;
const DIGEST_BYTES = 32;
/** Digests per chunk: chunks are added, never copied, as the log goes on. */
const CHUNK_DIGESTS = 8192;

/**
 * operationId → operationHash of every batch read so far, which a reader needs to the end of the
 * log to find a conflicting operation (docs/format.md §5.3): the ids in a string table, each hash
 * as its 32 bytes (a hash not in Reasonix's hex form kept as found), so a log of hundreds of
 * thousands of batches costs tens of bytes a batch, not two heap strings and a map entry.
 */
export class OperationLedger {
  private readonly ids = new StringTable();
  private readonly digests: Buffer[] = [];
  /** Hashes that are not 64 lowercase hex digits, by the ref of their operation id. */
  private readonly unusual = new Map<number, string>();

  get(operationId: string): string | undefined {
    const ref = this.ids.find(operationId);
    if (ref < 0) return undefined;
    const { chunk, start } = this.placeOf(ref);
    return this.unusual.get(ref) ?? chunk.toString('hex', start, start + DIGEST_BYTES);
  }

  set(operationId: string, operationHash: string): void {
    const ref = this.ids.intern(operationId);
    while (this.digests.length * CHUNK_DIGESTS <= ref) this.digests.push(Buffer.alloc(CHUNK_DIGESTS * DIGEST_BYTES));
    this.unusual.delete(ref);
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
