import type { CommittedBatch } from '../../codec/batch.js';
import { StringTable } from '../../compact/string-table.js';

/** The operation Reasonix closes a turn under: `turn-finalize:<turn id>`. */
const FINALIZE = 'turn-finalize:';

/**
 * The turn Reasonix 1.38.11 holds open at the end of a log, as its projection holds one: the turn id of the batch
 * of the last `turn/start`, cleared by any `turn/end` after it, whatever turn either batch names (a turn started
 * while another was open replaces it). Reasonix closes that turn as it next opens the session, in a batch under
 * `turn-finalize:<turn>`; a batch of the log under that operation already is refused then. So the turns whose
 * `turn-finalize` operation the log holds are kept too (a few bytes a turn).
 */
export class TurnLeftOpen {
  private readonly finalized = new StringTable();

  /** `open`: the turn held open before the first batch taken in (a checkpoint's, read on from its anchor). */
  constructor(private turnId = '') {}

  /** The turn open at the end of what was replayed; '' for none. */
  get open(): string {
    return this.turnId;
  }

  /** Takes in a batch's operation: a `turn-finalize` one is kept by its turn. */
  batch(batch: Pick<CommittedBatch, 'operationId'>): void {
    if (batch.operationId.startsWith(FINALIZE)) this.finalized.intern(batch.operationId.slice(FINALIZE.length));
  }

  /** Takes in an event of `batch`: a `turn/start` opens the batch's turn, a `turn/end` closes the one open. */
  event(batch: Pick<CommittedBatch, 'turnId'>, kind: string): void {
    if (kind === 'turn/start') this.turnId = batch.turnId ?? '';
    else if (kind === 'turn/end') this.turnId = '';
  }

  /** Whether the log holds a batch under `turn-finalize:<turnId>`. */
  finalizedInLog(turnId: string): boolean {
    return this.finalized.find(turnId) >= 0;
  }
}
