/**
 * The operations a log holds, operationId → operationHash, and the rule they follow (docs/format.md
 * §5.3): an id may come again only with the same hash, an idempotent retry; with another, the log
 * is damaged (`conflicting operation`). Readers, validation and writers all judge by it.
 */
export class OperationLedger {
  private readonly hashes: Map<string, string>;

  constructor(from?: OperationLedger) {
    this.hashes = new Map(from?.hashes);
  }

  /**
   * Admits one more operation, unless its id is held with another hash: then that hash is
   * returned (a conflict) and nothing is admitted.
   */
  admit(operationId: string, operationHash: string): string | undefined {
    const prior = this.hashes.get(operationId);
    if (prior !== undefined && prior !== operationHash) return prior;
    this.hashes.set(operationId, operationHash);
    return undefined;
  }
}
