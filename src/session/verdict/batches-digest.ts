import { createHash } from 'node:crypto';

/**
 * A digest of a log's committed batches, in order, made of each batch's own SHA-256: what tells
 * a second read of a log (the second of two passes) that it read the batches the first read.
 */
export class BatchesDigest {
  private readonly hash = createHash('sha256');

  add(batchSha256: string): void {
    this.hash.update(batchSha256);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
