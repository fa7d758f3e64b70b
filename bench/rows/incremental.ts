import { basename, dirname } from 'node:path';
import { cursorAt } from '../../src/session/cursors/cursor.js';
import { readSince } from '../../src/session/cursors/read-since.js';
import { seconds, times, verdict, type Figure } from '../support/figure.js';
import { benchSession, type BenchSession } from '../support/sessions.js';
import { timeTogether } from '../support/timing.js';

/** Each read takes well under a millisecond: many runs, so the median is steady. */
const PLAN = { runs: 31, warmup: 10 };

/**
 * Reading the one batch appended after a cursor, on a 1 MiB and a 100 MiB log: the cost must
 * not depend on what lies before the cursor. The cursor is the library's, taken at the durable
 * end before the log's last batch, and the read is the library's `readSince` (cursor check,
 * frames, batch verification, payloads).
 */
export async function incrementalRow(): Promise<Figure[]> {
  const [small, large] = [await benchSession(1), await benchSession(100)];
  const { smallTime, largeTime } = await timeTogether(PLAN, {
    smallTime: readNewBatch(small),
    largeTime: readNewBatch(large),
  });
  return [
    {
      row: 'incremental',
      measure: 'read 1 new batch from a cursor, 100 MiB log vs 1 MiB log',
      rxstore: seconds(largeTime.median),
      reference: seconds(smallTime.median),
      ratio: `${times(largeTime.median / smallTime.median)} its time`,
      target: '≤ 2× its time',
      verdict: verdict(largeTime.median / smallTime.median <= 2),
      data: { cursor100: large.lastBatch, cursor1: small.lastBatch, runs100: largeTime.runs, runs1: smallTime.runs },
    },
  ];
}

function readNewBatch(session: BenchSession): () => Promise<void> {
  const { offset, firstSeq } = session.lastBatch;
  const dir = dirname(session.log);
  const id = basename(dir);
  return async () => {
    const cursor = await cursorAt(dir, id, { offset, nextSequence: firstSeq, writerGeneration: 1 });
    const { batches } = await readSince(dir, id, cursor);
    if (batches.length !== 1)
      throw new Error(`expected the one batch after the cursor at ${offset}, read ${batches.length}`);
  };
}
