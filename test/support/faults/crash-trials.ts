import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { rxstoreBin, runNodeChild } from '../cli-child.js';
import { seededRandom } from '../seeded-random.js';

/** Session directories a reader (ls, Reasonix) would see in a store: no dot-directories. */
export async function visibleSessions(store: string): Promise<string[]> {
  const entries = await readdir(store, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => join(store, entry.name));
}

export interface CrashPlan {
  trials: number;
  parallel: number;
  seed: number;
  /** Lays a fresh input for one trial; returns the node arguments (a script and its arguments) that work on it. */
  prepare(trial: number): Promise<string[]>;
  /** Checks what a killed (or finished) run left, then that a re-run completes. */
  verify(trial: number, rerun: () => Promise<void>): Promise<void>;
}

/**
 * Kills a child with SIGKILL at random points of its work and checks what each killed run left.
 * The machine's load changes as trials run, so the kill window follows it: the re-run after a
 * kill is an uninterrupted run of the whole work under the current load, and the next kill falls
 * within the time such a run takes, past the share of it that start-up took when measured (spread over start-up and
 * work alike, most kills would land before any work began). Returns how many runs were killed.
 */
export async function crashTrials(plan: CrashPlan): Promise<{ killed: number; startupMs: number; runtimeMs: number }> {
  const random = seededRandom(plan.seed);
  const timed = async (runs: string[][]) => {
    const started = performance.now();
    const results = await Promise.all(runs.map((argv) => runNodeChild(argv)));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    return performance.now() - started;
  };
  const probes = await Promise.all(Array.from({ length: plan.parallel }, (_, index) => plan.prepare(-1 - index)));
  const startupMs = await timed(probes.map(() => [rxstoreBin, '--version']));
  const runtimeMs = await timed(probes);
  const startupShare = Math.min(0.9, startupMs / runtimeMs);
  let recentRunMs = runtimeMs;

  let killed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.parallel }, async () => {
      while (next < plan.trials) {
        const trial = next++;
        const args = await plan.prepare(trial);
        const run = await runNodeChild(args, {
          killAfterMs: recentRunMs * (startupShare + random.next() * (1 - startupShare) * 1.1),
        });
        const wasKilled = run.signal === 'SIGKILL';
        if (wasKilled) killed += 1;
        // A run that finished before its kill: the window was too wide for this load; narrow it.
        else recentRunMs *= 0.8;
        await plan.verify(trial, async () => {
          const started = performance.now();
          const rerun = await runNodeChild(args);
          // After a kill the re-run does the whole work again: a fair measure of a run under this load.
          if (wasKilled) recentRunMs = (recentRunMs + (performance.now() - started)) / 2;
          expect(rerun.code, rerun.stderr).toBe(0);
        });
      }
    }),
  );
  return { killed, startupMs, runtimeMs };
}
