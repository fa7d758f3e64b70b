import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChildOk } from '../support/child.js';
import { seconds, skipped, times, verdict, type Figure } from '../support/figure.js';
import { peakRssMiB, peakRssUnavailable } from '../support/peak-rss.js';
import { repoRoot, rxstoreBin } from '../support/paths.js';
import { benchSession, type BenchSession } from '../support/sessions.js';
import { median } from '../support/timing.js';

const RUNS = 5;
/** Runs of a whole read at each size: three, the 100 MiB one taking seconds. */
const WHOLE_RUNS = 3;
const script = join(repoRoot, 'bench', 'children', 'first-read.mjs');

/** Milliseconds a fresh process takes to do `what` to a session, timed inside it from the call: the median of a few runs. */
async function firstRead(
  what: string,
  session: BenchSession,
  runCount = RUNS,
): Promise<{ median: number; runs: number[]; extra: number[] }> {
  const runs: number[] = [];
  const extra: number[] = [];
  for (let run = 0; run < runCount; run += 1) {
    const [ms, more] = (await runChildOk(process.execPath, [script, what, session.dir], { keepStdout: true })).stdout
      .trim()
      .split(' ');
    runs.push(Number(ms) / 1000);
    if (more !== undefined) extra.push(Number(more));
  }
  return { median: median(runs), runs, extra };
}

/** Seconds `rxstore cat <args>` takes, its output to /dev/null: the median of a few runs, each from `before()`. */
async function catRun(args: string[], before: () => Promise<void>): Promise<{ median: number; runs: number[] }> {
  const runs: number[] = [];
  for (let run = 0; run < WHOLE_RUNS; run += 1) {
    await before();
    const started = performance.now();
    await runChildOk(process.execPath, [rxstoreBin, 'cat', ...args]);
    runs.push((performance.now() - started) / 1000);
  }
  return { median: median(runs), runs };
}

/**
 * What an indexer pays to meet a session the first time, incrementally, beside reading it whole:
 * every piece of `recordsSince` from no cursor against every record of `records()`, and `cat
 * --records --cursor` on a new cursor file against `cat --records`, at 25, 50 and 100 MiB (the
 * ratio must not grow with the log), and the size of the last cursor.
 */
export async function firstRecordsRow(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'rxstore-bench-cursor-'));
  for (const size of [25, 50, 100]) {
    const session = await benchSession(size);
    const [since, whole] = [
      await firstRead('recordsSince', session, WHOLE_RUNS),
      await firstRead('records', session, WHOLE_RUNS),
    ];
    const ratio = since.median / whole.median;
    figures.push({
      row: 'streams',
      measure: `first recordsSince (every piece, no cursor), ${size} MiB session`,
      rxstore: seconds(since.median),
      reference: `records(): ${seconds(whole.median)}`,
      ratio: `${times(ratio)} its time`,
      target: '≤ 1.3×',
      verdict: verdict(ratio <= 1.3),
      data: { sinceRuns: since.runs, wholeRuns: whole.runs, cursorBytes: since.extra, rawBytes: session.rawBytes },
    });
    if (size === 100) {
      const bytes = Math.max(...since.extra);
      figures.push({
        row: 'streams',
        measure: 'records cursor after a first read, 100 MiB session (JSON)',
        rxstore: `${(bytes / 1024).toFixed(1)} KiB`,
        reference: '64 KiB',
        ratio: `${times(bytes / 65536)} it`,
        target: '≤ 64 KiB',
        verdict: verdict(bytes <= 65536),
        data: { cursorBytes: since.extra },
      });
    }
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
 * whole one (`firstRecordsRow`), the time to the first
 * record (`recordsSince`) and to `follow`'s first batch of a 100 MiB session, beside the same for
 * a 1 MiB one (what one batch takes, more or less), and the peak RSS of a first `batchesSince` and
 * `readSince` of its log beside a 1 MiB one's.
 */
export async function streamsRow(): Promise<Figure[]> {
  const [small, large] = [await benchSession(1), await benchSession(100)];
  const timeFigure = async (what: string, measure: string): Promise<Figure> => {
    const [ours, reference] = [await firstRead(what, large), await firstRead(what, small)];
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
    ...(await firstRecordsRow()),
    await timeFigure('record', 'first record of a 100 MiB session (recordsSince)'),
    await timeFigure('follow', "follow's first batch of a 100 MiB session"),
  ];
  const unavailable = peakRssUnavailable();
  if (unavailable) return [...figures, skipped('streams', 'peak RSS of a first read of a 100 MiB log', unavailable)];
  for (const what of ['batches', 'readSince']) {
    const [ours, reference] = [
      await peakRssMiB(process.execPath, [script, what, large.dir]),
      await peakRssMiB(process.execPath, [script, what, small.dir]),
    ];
    figures.push({
      row: 'streams',
      measure: `peak RSS of a first ${what === 'batches' ? 'batchesSince (streamed)' : 'readSince (gathered)'}, 100 MiB log`,
      rxstore: `${ours.toFixed(0)} MiB`,
      reference: `${reference.toFixed(0)} MiB (the same, 1 MiB log)`,
      ratio: `${times(ours / reference)} it`,
      target: '— (none set)',
      verdict: 'info',
      data: { rawBytes: large.rawBytes },
    });
  }
  return figures;
}
