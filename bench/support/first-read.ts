import { join } from 'node:path';
import { runChildOk } from './child.js';
import { repoRoot } from './paths.js';
import type { BenchSession } from './sessions.js';
import { median } from './timing.js';

/** Runs of a first read at each size: a few, the 100 MiB one taking seconds. */
export const FIRST_READ_RUNS = 3;
/** The sizes (MiB) a first read is timed at: its ratio to a whole read must not grow with the log. */
export const FIRST_READ_SIZES = [25, 50, 100] as const;
export const firstReadScript = join(repoRoot, 'bench', 'children', 'first-read.mjs');

/**
 * Seconds a fresh process takes to do `what` to a session (`bench/children/first-read.mjs`), timed
 * inside it from the call: the median of a few runs, with the number each run printed after its time.
 */
export async function firstRead(
  what: string,
  session: BenchSession,
  runCount: number,
): Promise<{ median: number; runs: number[]; extra: number[] }> {
  const runs: number[] = [];
  const extra: number[] = [];
  for (let run = 0; run < runCount; run += 1) {
    const [ms, more] = (
      await runChildOk(process.execPath, [firstReadScript, what, session.dir], { keepStdout: true })
    ).stdout
      .trim()
      .split(' ');
    runs.push(Number(ms) / 1000);
    if (more !== undefined) extra.push(Number(more));
  }
  return { median: median(runs), runs, extra };
}
