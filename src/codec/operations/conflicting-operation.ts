import { DamagedStoreError } from '../../errors/index.js';
import type { CommittedBatch } from '../batch.js';

/**
 * What a read says of a batch whose operation id an earlier batch of the log used with another hash
 * (`prior`): Reasonix refuses the session there (docs/format.md §5.3).
 */
export function conflictingOperation(
  file: string | undefined,
  batch: Pick<CommittedBatch, 'operationId' | 'operationHash' | 'commitId' | 'offset'>,
  prior: string,
): DamagedStoreError {
  return new DamagedStoreError(`conflicting operation ${JSON.stringify(batch.operationId)}`, {
    file,
    offset: batch.offset,
    commitId: batch.commitId,
    expected: prior,
    found: batch.operationHash,
  });
}
