import { join } from 'node:path';
import type { Projection } from '../replay/projection.js';
import { readSessionEvents, type ReadEventsOptions, type ResolvedBatch } from '../reading/read-events.js';
import { SESSION_FILES } from '../reading/session-files.js';
import { replayBatch } from '../replay/strict-payload-error.js';

/**
 * The committed batches of a session's log (from `options.offset` on), each with its replay on its
 * own: a batch holding a payload Reasonix would refuse throws its `StrictPayloadError`, after the
 * batches before it. A torn tail is left out, as readers never see it. Decoded on the caller's
 * thread, as `records()` reads a log: a worker's second heap would make a stream's memory grow
 * with the log it reads (some 45 MiB more for a 100 MiB log), for no speed measured on two cores.
 */
export async function* replayedBatches(
  sessionDir: string,
  options: ReadEventsOptions = {},
): AsyncGenerator<{ batch: ResolvedBatch; replay: Projection }> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  for await (const item of readSessionEvents(sessionDir, options)) {
    if (item.type !== 'batch') continue;
    const { replay, refusal } = replayBatch(item.value, logPath);
    if (refusal) throw refusal;
    yield { batch: item.value, replay };
  }
}
