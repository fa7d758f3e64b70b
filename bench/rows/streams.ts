import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChildOk } from '../support/child.js';
import { FIRST_READ_RUNS, FIRST_READ_SIZES, firstRead, firstReadScript } from '../support/first-read.js';
import { seconds, skipped, times, verdict, type Figure } from '../support/figure.js';
import { peakRssMiB, peakRssUnavailable } from '../support/peak-rss.js';
import { rxstoreBin } from '../support/paths.js';
import { benchSession } from '../support/sessions.js';
import { median } from '../support/timing.js';

const RUNS = 5;

/** Seconds `rxstore cat <args>` takes, its output to /dev/null: the median of a few runs, each from `before()`. */
async function catRun(args: string[], before: () => Promise<void>): Promise<{ median: number; runs: number[] }> {
  const runs: number[] = [];
  for (let run = 0; run < FIRST_READ_RUNS; run += 1) {
    await before();
    const started = performance.now();
    await runChildOk(process.execPath, [rxstoreBin, 'cat', ...args]);
    runs.push((performance.now() - started) / 1000);
  }
  return { median: median(runs), runs };
}

/**
 * What `rxstore cat --records --cursor` pays to meet a session the first time, beside `cat
 * --records`: a new cursor file against none, at 25, 50 and 100 MiB (the ratio must not grow with
 * the log). The library's first `recordsSince` against `records()` is the incremental row's.
 */
export async function catCursorFigures(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'rxstore-bench-cursor-'));
  for (const size of FIRST_READ_SIZES) {
    const session = await benchSession(size);
    const cursorFile = join(scratch, `${size}.cursor`);
    const withCursor = await catRun([session.dir, '--records', '--cursor', cursorFile], () =>
      rm(cursorFile, { force: true }),
    );
    const plain = await catRun([session.dir, '--records'], async () => undefined);
    const catRatio = withCursor.median / plain.median;
    figures.push({
      row: 'streams',
      measure: `cat --records --cursor on a new file, ${size} MiB session`,
      rxstore: seconds(withCursor.median),
      reference: `cat --records: ${seconds(plain.median)}`,
      ratio: `${times(catRatio)} its time`,
      target: '≤ 1.3×',
      verdict: verdict(catRatio <= 1.3),
      data: { cursorRuns: withCursor.runs, plainRuns: plain.runs },
    });
  }
  await rm(scratch, { recursive: true, force: true });
  return figures;
}

/**
 * What streaming buys an indexer meeting a session for the first time: the first read against a
 * whole one (`catCursorFigures`), the time to the first
 * record (`recordsSince`) and to `follow`'s first batch of a 100 MiB session, beside the same for
 * a 1 MiB one (what one batch takes, more or less), and the peak RSS of a first `batchesSince` and
 * `readSince` of its log beside a 1 MiB one's.
 */
export async function streamsRow(): Promise<Figure[]> {
  const [small, large] = [await benchSession(1), await benchSession(100)];
  const timeFigure = async (what: string, measure: string): Promise<Figure> => {
    const [ours, reference] = [await firstRead(what, large, RUNS), await firstRead(what, small, RUNS)];
    return {
      row: 'streams',
      measure,
      rxstore: seconds(ours.median),
      reference: `${seconds(reference.median)} (the same, 1 MiB session)`,
      ratio: `${times(ours.median / reference.median)} its time`,
      target: '— (none set; ~1× means it does not wait for the log)',
      verdict: 'info',
      data: { rxstoreRuns: ours.runs, referenceRuns: reference.runs },
    };
  };
  const figures = [
    ...(await catCursorFigures()),
    await timeFigure('record', 'first record of a 100 MiB session (recordsSince)'),
    await timeFigure('follow', "follow's first batch of a 100 MiB session"),
  ];
  const unavailable = peakRssUnavailable();
  if (unavailable) return [...figures, skipped('streams', 'peak RSS of a first read of a 100 MiB log', unavailable)];
  for (const what of ['batches', 'readSince']) {
    const [ours, reference] = [
      await peakRssMiB(process.execPath, [firstReadScript, what, large.dir]),
      await peakRssMiB(process.execPath, [firstReadScript, what, small.dir]),
    ];
    // A gathered read holds its result: its goal is against the log's raw bytes, not a smaller read.
    const rawMiB = large.rawBytes / (1024 * 1024);
    figures.push({
      row: 'streams',
      measure: `peak RSS of a first ${what === 'batches' ? 'batchesSince (streamed)' : 'readSince (gathered)'}, 100 MiB log`,
      rxstore: `${ours.toFixed(0)} MiB`,
      reference: `${reference.toFixed(0)} MiB (the same, 1 MiB log)`,
      ratio: what === 'readSince' ? `${times(ours / rawMiB)} the raw bytes` : `${times(ours / reference)} it`,
      target: what === 'readSince' ? '≤ 3× the raw bytes' : '— (none set)',
      verdict: what === 'readSince' ? verdict(ours <= 3 * rawMiB) : 'info',
      data: { rawBytes: large.rawBytes },
    });
  }
  figures.push(await recordsPeakFigure());
  return figures;
}

/** Memory of what streams is flat: `records()` drained, of a 100 MiB session against a 25 MiB one. */
async function recordsPeakFigure(): Promise<Figure> {
  const [large, small] = [await benchSession(100), await benchSession(25)];
  const [ours, reference] = [
    await peakRssMiB(process.execPath, [firstReadScript, 'records', large.dir]),
    await peakRssMiB(process.execPath, [firstReadScript, 'records', small.dir]),
  ];
  return {
    row: 'streams',
    measure: 'peak RSS of records() drained, 100 MiB session vs 25 MiB',
    rxstore: `${ours.toFixed(0)} MiB`,
    reference: `${reference.toFixed(0)} MiB (the same, 25 MiB session)`,
    ratio: `${times(ours / reference)} it`,
    target: '≤ 1.3×',
    verdict: verdict(ours / reference <= 1.3),
    data: { rawBytes: large.rawBytes, referenceRawBytes: small.rawBytes },
  };
}
