import { join } from 'node:path';
import { runChildOk } from '../support/child.js';
import { seconds, skipped, times, type Figure } from '../support/figure.js';
import { peakRssMiB, peakRssUnavailable } from '../support/peak-rss.js';
import { repoRoot } from '../support/paths.js';
import { benchSession, type BenchSession } from '../support/sessions.js';
import { median } from '../support/timing.js';

const RUNS = 5;
const script = join(repoRoot, 'bench', 'children', 'first-read.mjs');

/** Milliseconds a fresh process takes to do `what` to a session, timed inside it from the call: the median of a few runs. */
async function firstRead(what: string, session: BenchSession): Promise<{ median: number; runs: number[] }> {
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(Number((await runChildOk(process.execPath, [script, what, session.dir], { keepStdout: true })).stdout.trim()) / 1000);
  return { median: median(runs), runs };
}

/**
 * What streaming buys an indexer meeting a session for the first time: the time to the first
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
  const figures = [await timeFigure('record', 'first record of a 100 MiB session (recordsSince)'), await timeFigure('follow', "follow's first batch of a 100 MiB session")];
  const unavailable = peakRssUnavailable();
  if (unavailable) return [...figures, skipped('streams', 'peak RSS of a first read of a 100 MiB log', unavailable)];
  for (const what of ['batches', 'readSince']) {
    const [ours, reference] = [await peakRssMiB(process.execPath, [script, what, large.dir]), await peakRssMiB(process.execPath, [script, what, small.dir])];
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
