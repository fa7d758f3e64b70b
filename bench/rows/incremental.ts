import { utimes } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { cursorAt, type Cursor } from '../../src/session/cursors/cursor.js';
import { batchesSince, readSince } from '../../src/session/cursors/read-since.js';
import { seconds, times, verdict, type Figure } from '../support/figure.js';
import { FIRST_READ_RUNS, FIRST_READ_SIZES, firstRead } from '../support/first-read.js';
import { benchSession, type BenchSession } from '../support/sessions.js';
import { timeTogether } from '../support/timing.js';

/** Each read takes well under a millisecond: many runs, so the median is steady. */
const PLAN = { runs: 31, warmup: 10 };

/**
 * The incremental row: reading the one batch appended after a cursor (`newBatchFigures`), a read
 * that finds nothing new (`caughtUpFigures`), and what an indexer pays to meet a session the first
 * time (`firstRecordsFigures`).
 */
export async function incrementalRow(): Promise<Figure[]> {
  return [...(await newBatchFigures()), ...(await caughtUpFigures()), ...(await firstRecordsFigures())];
}

/** The most a records cursor holds whatever the log (docs/library.md): its filters and calls waiting are bounded. */
const CURSOR_BOUND = 80 * 1024;
/** A verification reads the whole log: few runs. */
const VERIFY_PLAN = { runs: 5, minRuns: 3, budgetSeconds: 30, warmup: 1 };

/**
 * A read from a cursor at the log's end, its stamp the log's: a stat and the cursor's two small
 * ranges, whatever lies before it (100 MiB against 1 MiB). And, the log touched under it (its
 * stamp differs), the one verification of the log up to the cursor, against a read of every batch
 * from no cursor, which verifies the log the same way.
 */
async function caughtUpFigures(): Promise<Figure[]> {
  const [small, large] = [await benchSession(1), await benchSession(100)];
  const [smallCursor, largeCursor] = [await endCursor(small), await endCursor(large)];
  const { smallTime, largeTime } = await timeTogether(PLAN, {
    smallTime: readCaughtUp(small, smallCursor),
    largeTime: readCaughtUp(large, largeCursor),
  });
  const dir = dirname(large.log);
  const id = basename(dir);
  const { verifyTime, wholeTime } = await timeTogether(
    // Touched before each run: the cursor's stamp no longer holds, and the read verifies the log.
    { ...VERIFY_PLAN, prepare: () => utimes(large.log, new Date(), new Date()) },
    {
      verifyTime: readCaughtUp(large, largeCursor),
      wholeTime: async () => {
        for await (const _ of batchesSince(dir, id));
      },
    },
  );
  return [
    {
      row: 'incremental',
      measure: 'caught-up read from a cursor at the end, 100 MiB log vs 1 MiB log',
      rxstore: seconds(largeTime.median),
      reference: seconds(smallTime.median),
      ratio: `${times(largeTime.median / smallTime.median)} its time`,
      target: '≤ 2× its time',
      verdict: verdict(largeTime.median / smallTime.median <= 2),
      data: { runs100: largeTime.runs, runs1: smallTime.runs },
    },
    {
      row: 'incremental',
      measure: 'caught-up read, log touched under the cursor (verified once), 100 MiB log',
      rxstore: seconds(verifyTime.median),
      reference: `batchesSince() from no cursor: ${seconds(wholeTime.median)}`,
      ratio: `${times(verifyTime.median / wholeTime.median)} its time`,
      target: '≤ 1.1× its time',
      verdict: verdict(verifyTime.median / wholeTime.median <= 1.1),
      data: { verifyRuns: verifyTime.runs, wholeRuns: wholeTime.runs },
    },
  ];
}

/** The cursor after the session's last batch, taken by reading that batch: at the log's end, with its stamp. */
async function endCursor(session: BenchSession): Promise<Cursor> {
  const { offset, firstSeq } = session.lastBatch;
  const dir = dirname(session.log);
  const id = basename(dir);
  const before = await cursorAt(dir, id, { offset, nextSequence: firstSeq, writerGeneration: 1 });
  const { cursor } = await readSince(dir, id, before);
  if (cursor.logStamp === undefined) throw new Error(`the cursor at the end of ${session.log} has no stamp`);
  return cursor;
}

function readCaughtUp(session: BenchSession, cursor: Cursor): () => Promise<void> {
  const dir = dirname(session.log);
  const id = basename(dir);
  return async () => {
    const { batches } = await readSince(dir, id, cursor);
    if (batches.length !== 0)
      throw new Error(`expected nothing after the cursor at ${cursor.offset}, read ${batches.length}`);
  };
}

/**
 * Reading the one batch appended after a cursor, on a 1 MiB and a 100 MiB log: the cost must
 * not depend on what lies before the cursor. The cursor is the library's, taken at the durable
 * end before the log's last batch, and the read is the library's `readSince` (cursor check,
 * frames, batch verification, payloads).
 */
async function newBatchFigures(): Promise<Figure[]> {
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

/**
 * What an indexer pays to meet a session the first time, incrementally, beside reading it whole:
 * every piece of `recordsSince` from no cursor (the cursor of each kept, the last stored as JSON,
 * as `indexSince` and `cat --records --cursor` keep it) against every record of `records()`, each
 * in a fresh process, at 25, 50 and 100 MiB (the ratio must not grow with the log); the size of the
 * last cursor; and, at 100 MiB, the same read storing every piece's cursor as JSON.
 */
async function firstRecordsFigures(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const size of FIRST_READ_SIZES) {
    const session = await benchSession(size);
    const [since, whole] = [
      await firstRead('recordsSince', session, FIRST_READ_RUNS),
      await firstRead('records', session, FIRST_READ_RUNS),
    ];
    const ratio = since.median / whole.median;
    figures.push({
      row: 'incremental',
      measure: `first recordsSince (every piece, no cursor), ${size} MiB session`,
      rxstore: seconds(since.median),
      reference: `records(): ${seconds(whole.median)}`,
      ratio: `${times(ratio)} its time`,
      target: '≤ 1.3×',
      verdict: verdict(ratio <= 1.3),
      data: { sinceRuns: since.runs, wholeRuns: whole.runs, cursorBytes: since.extra, rawBytes: session.rawBytes },
    });
    if (size !== 100) continue;
    const bytes = Math.max(...since.extra);
    figures.push({
      row: 'incremental',
      measure: 'records cursor after a first read, 100 MiB session (JSON)',
      rxstore: `${(bytes / 1024).toFixed(1)} KiB`,
      reference: '80 KiB',
      ratio: `${times(bytes / CURSOR_BOUND)} it`,
      target: '≤ 80 KiB',
      verdict: verdict(bytes <= CURSOR_BOUND),
      data: { cursorBytes: since.extra },
    });
    const each = await firstRead('recordsSinceEach', session, FIRST_READ_RUNS);
    figures.push({
      row: 'incremental',
      measure: "first recordsSince, every piece's cursor stored as JSON, 100 MiB session",
      rxstore: seconds(each.median),
      reference: `records(): ${seconds(whole.median)}`,
      ratio: `${times(each.median / whole.median)} its time`,
      target: '— (none set: a caller that stores every cursor pays for each)',
      verdict: 'info',
      data: { eachRuns: each.runs, wholeRuns: whole.runs },
    });
  }
  return figures;
}
