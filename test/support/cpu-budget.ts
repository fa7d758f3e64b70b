// A bound on a test's own work that a loaded machine does not move. Vitest's per-test timeout is wall-clock
// time: on a machine busy with other work a test that computes for 20 s of CPU can take 80 s and fail for
// it. A CPU-bound test runs instead with no wall-clock timeout (`CPU_CLOCK_ONLY`) and is held to the same
// number of milliseconds counted in this process's CPU time, which other processes do not spend.
import { expect } from 'vitest';

/** The per-test budget, as vitest.config.ts gives every test in wall-clock time. */
export const TEST_BUDGET_MS = 60_000;

/** Vitest's timeout for a test held to its budget by `withinCpuTime` instead: none on the wall clock. */
export const CPU_CLOCK_ONLY = 0;

/** Checks of the CPU clock: a check late on a loaded machine only reports later, never differently. */
const CHECK_EVERY_MS = 500;

/**
 * Windows of the wall clock in which the process did no work at all although the test is not done:
 * a test that computes is never idle that long, even sharing its core with many others (the scheduler
 * gives every runnable process its turn within milliseconds), so it is waiting for something that
 * will not come.
 */
const IDLE_WINDOWS = 40;

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs `work`, a test's body that computes in this process, and fails it once it has used more than
 * `budgetMs` of CPU time, or when it hangs (no CPU used over IDLE_WINDOWS checks in a row).
 */
export async function withinCpuTime<T>(work: () => Promise<T>, budgetMs = TEST_BUDGET_MS): Promise<T> {
  const start = cpuMs();
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    let last = start;
    let idle = 0;
    timer = setInterval(() => {
      const now = cpuMs();
      idle = now - last < 1 ? idle + 1 : 0;
      last = now;
      if (now - start > budgetMs) reject(new Error(`used more than ${budgetMs} ms of CPU time`));
      else if (idle >= IDLE_WINDOWS)
        reject(
          new Error(
            `did no work over ${IDLE_WINDOWS} checks of the CPU clock: waiting for something that does not come`,
          ),
        );
    }, CHECK_EVERY_MS);
  });
  try {
    const result = await Promise.race([work(), watchdog]);
    expect(cpuMs() - start).toBeLessThan(budgetMs);
    return result;
  } finally {
    clearInterval(timer);
  }
}
