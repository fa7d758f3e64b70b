/** Wall-clock times of several runs of one thing, in seconds, and their median. */
export interface Timing {
  median: number;
  runs: number[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface RunPlan {
  /** At most this many runs. */
  runs: number;
  /** Stop after this many runs once `budgetSeconds` have been spent; default `runs`. */
  minRuns?: number;
  budgetSeconds?: number;
  /** Untimed runs first, so an in-process run is timed with its code already compiled by the JIT. */
  warmup?: number;
  /** Runs before each run, untimed (e.g. a fresh copy of a session the run will change). */
  prepare?: () => Promise<unknown>;
}

/**
 * Times several things in rounds, one run of each per round, and keeps each one's median. The
 * machine is shared and its load comes and goes: interleaving lets rxstore and its reference
 * meet the same load, and the median ignores the odd slow run. Slow things stop at `minRuns`
 * rounds once past their budget, so the whole bench stays within minutes.
 */
export async function timeTogether<K extends string>(
  plan: RunPlan,
  things: Record<K, () => Promise<unknown>>,
): Promise<Record<K, Timing>> {
  const names = Object.keys(things) as K[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < (plan.warmup ?? 0); round += 1) {
    for (const name of names) {
      await plan.prepare?.();
      await things[name]();
    }
  }
  let spent = 0;
  for (
    let round = 0;
    round < plan.runs && !(round >= (plan.minRuns ?? plan.runs) && spent >= (plan.budgetSeconds ?? 0));
    round += 1
  ) {
    for (const name of names) {
      await plan.prepare?.();
      const started = performance.now();
      await things[name]();
      const time = (performance.now() - started) / 1000;
      times[name].push(time);
      spent += time;
    }
  }
  return Object.fromEntries(names.map((name) => [name, { median: median(times[name]), runs: times[name] }])) as Record<
    K,
    Timing
  >;
}

/** `timeTogether` of one thing. */
export async function timeRuns(plan: RunPlan, once: () => Promise<unknown>): Promise<Timing> {
  return (await timeTogether(plan, { once })).once;
}
