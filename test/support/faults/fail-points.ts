import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runNodeChild } from '../cli-child.js';
import { tempDir } from '../temp-dir.js';

/** One pass of a run through a fail point (src/fs/fail-point.ts): its name and which hit of that name. */
export interface FailPointHit {
  name: string;
  hit: number;
}

export const describeHit = (point: FailPointHit) => `${point.name}:${point.hit}`;

async function tracedRun(argv: string[], failPoint?: FailPointHit) {
  const trace = join(await tempDir('rxstore-fail-trace-'), 'trace');
  const env: NodeJS.ProcessEnv = { ...process.env, RXSTORE_FAIL_POINT_TRACE: trace };
  if (failPoint) env.RXSTORE_FAIL_POINT = describeHit(failPoint);
  else delete env.RXSTORE_FAIL_POINT;
  const run = await runNodeChild(argv, { env });
  return { run, hits: hitsOf(await tracedNames(trace)) };
}

/** The names a trace file holds, one a line, in the order the run passed them (none when it was never written). */
export async function tracedNames(trace: string): Promise<string[]> {
  return (await readFile(trace, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

/** Points passed in this order, each with which hit of its name it was. */
export function hitsOf(names: readonly string[]): FailPointHit[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const hit = (seen.get(name) ?? 0) + 1;
    seen.set(name, hit);
    return { name, hit };
  });
}

/** Runs `argv` (a node script and its arguments) to its end; returns every fail point it passed, in order. */
export async function traceFailPoints(argv: string[]): Promise<FailPointHit[]> {
  const { run, hits } = await tracedRun(argv);
  expect(run.code, run.stderr).toBe(0);
  return hits;
}

/**
 * Runs `argv` with `point` switched on and checks that the process died there, by SIGKILL: the
 * trace of the run ends with that very hit, so the step was reached and nothing ran after it.
 */
export async function killAtFailPoint(argv: string[], point: FailPointHit): Promise<void> {
  const { run, hits } = await tracedRun(argv, point);
  expect(run.signal, `${run.stdout}${run.stderr}`).toBe('SIGKILL');
  expect(hits.at(-1)).toEqual(point);
}

/** Of a name passed more than this many times, only the first and last few hits are tried. */
const HITS_TRIED_OF_A_LOOP = 6;

/**
 * Fail points a run reaches right after another having done nothing a kill can tell apart: an fsync, a
 * size check, a close, an fsync of the folder. Killed by SIGKILL the page cache survives (it is a power
 * cut that loses what was not synced), so a kill at the second, straight after the first, leaves the
 * files a kill at the first leaves, and its trial would repeat that one. Each pair is as its writer
 * passes it: `atomic.renamed` then `dir.synced` is not one, since a set of files releases its
 * folder's lock between them.
 */
const SAME_FILES_AS_THE_POINT_BEFORE: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['atomic.temp-synced', new Set(['atomic.temp-written'])],
  ['atomic.before-rename', new Set(['atomic.temp-synced'])],
  ['new-file.synced', new Set(['new-file.written'])],
  ['append.log-synced', new Set(['append.log-written'])],
  ['create.log-synced', new Set(['create.batch-written'])],
  ['repair.log-synced', new Set(['repair.truncated'])],
  ['dir.synced', new Set(['content.temp-removed', 'create.log-synced', 'create.published', 'repair.staged-removed'])],
]);

/**
 * The hits worth a trial, in the order the run passed them:
 * - of a name passed up to six times, every hit (a name may stand for several files: each is
 *   tried); of a name passed more often, which only a loop does (one write per batch of a 52-batch
 *   log), its first three hits and last two. The hits between pass the same line with more of the
 *   same before them; trying each multiplied a command's trials by its input's size;
 * - but not a hit that leaves the files the hit just before it leaves, when that one's files are
 *   tried (`SAME_FILES_AS_THE_POINT_BEFORE`).
 */
export function hitsToTry(hits: readonly FailPointHit[]): FailPointHit[] {
  const passes = new Map<string, number>();
  for (const point of hits) passes.set(point.name, (passes.get(point.name) ?? 0) + 1);
  const tried: FailPointHit[] = [];
  // Whether the files the hit before leaves are tried: by its own trial, or by one it repeats.
  let beforeTried = false;
  for (const [at, point] of hits.entries()) {
    const before = hits[at - 1];
    if (before && beforeTried && SAME_FILES_AS_THE_POINT_BEFORE.get(point.name)?.has(before.name)) continue;
    const total = passes.get(point.name)!;
    beforeTried = total <= HITS_TRIED_OF_A_LOOP || point.hit <= 3 || point.hit > total - 2;
    if (beforeTried) tried.push(point);
  }
  return tried;
}

/**
 * Runs `check` on every hit worth a trial (`hitsToTry`), `parallel` at once, each failure naming
 * its fail point. Start-up dominates a run, so several overlap well even on a small machine.
 */
export async function forEachHit(
  hits: FailPointHit[],
  parallel: number,
  check: (point: FailPointHit) => Promise<void>,
): Promise<void> {
  const trials = hitsToTry(hits);
  let next = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < trials.length) {
        const point = trials[next++]!;
        try {
          await check(point);
        } catch (error) {
          failures.push(`killed at ${describeHit(point)}: ${(error as Error).message}`);
        }
      }
    }),
  );
  expect(failures).toEqual([]);
}

/**
 * Paths under `root` a reader takes for real: every name not starting with a dot (Reasonix and
 * rxstore pass over dot-names: staging directories, temp files, locks), relative, sorted, with
 * the nanosecond stamp of an evidence file replaced by `N` (each repair picks its own).
 */
export async function visiblePaths(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.name.startsWith('.')) continue;
      const path = `${prefix}${entry.name.replace(/^events\.torn-\d+\.tail$/, 'events.torn-N.tail')}`;
      found.push(path);
      if (entry.isDirectory()) await walk(join(dir, entry.name), `${path}/`);
    }
  };
  await walk(root, '');
  return [...new Set(found)].sort();
}
