import { median, type Timing } from './timing.js';
import { peakRssMiB } from './peak-rss.js';
import { rxstoreBin } from './paths.js';
import type { BenchSession } from './sessions.js';

export interface InspectRuns {
  time: Timing;
  /** Peak RSS of each run, MiB, and their median. */
  peakRss: { median: number; runs: number[] };
}

const RUNS = 3;
const measured = new Map<string, Promise<InspectRuns>>();

/**
 * `node bin/rxstore.js inspect <dir> --json > /dev/null`, run as a user runs it, timing each run
 * and taking its peak RSS in the same run. The memory and Reasonix rows both need these figures;
 * within one bench run a session is measured once.
 */
export function inspectCli(session: BenchSession): Promise<InspectRuns> {
  let runs = measured.get(session.dir);
  if (!runs) {
    runs = measure(session);
    measured.set(session.dir, runs);
  }
  return runs;
}

async function measure(session: BenchSession): Promise<InspectRuns> {
  const times: number[] = [];
  const peaks: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    peaks.push(await peakRssMiB(process.execPath, [rxstoreBin, 'inspect', session.dir, '--json']));
    times.push((performance.now() - started) / 1000);
  }
  return { time: { median: median(times), runs: times }, peakRss: { median: median(peaks), runs: peaks } };
}
