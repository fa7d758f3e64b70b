import { join } from 'node:path';
import type { Projection } from '../replay/projection.js';
import { readSessionEventsOn, type ReadEventsOptions, type ResolvedBatch } from '../reading/read-events.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { replayBatch } from '../replay/strict-payload-error.js';

/**
 * The committed batches of a session's log (from `options.offset` on), each with its replay on its
 * own: a batch holding a payload Reasonix would refuse throws its `StrictPayloadError`, after the
 * batches before it. A torn tail is left out, as readers never see it. A long read (16 MiB of log
 * or more from where it starts, such as a first read from no cursor) is decoded on a worker
 * thread, as a whole read is: a stream and a whole read of one log cost the same.
 */
export async function* replayedBatches(
  sessionDir: string,
  options: ReadEventsOptions = {},
): AsyncGenerator<{ batch: ResolvedBatch; replay: Projection }> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  // Stryker disable next-line StringLiteral: which thread reads the log: both give the same items
  for await (const item of readSessionEventsOn('by size', sessionDir, options)) {
    if (item.type !== 'batch') continue;
    const { replay, refusal } = replayBatch(item.value, logPath);
    if (refusal) throw refusal;
    yield { batch: item.value, replay };
  }
}
