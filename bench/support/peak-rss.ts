import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runChildOk, type ChildOptions } from './child.js';
import { scratchDir } from './paths.js';

const GNU_TIME = '/usr/bin/time';

/** Why peak RSS cannot be measured here, or null when it can. */
export function peakRssUnavailable(): string | null {
  return existsSync(GNU_TIME) ? null : `${GNU_TIME} is not installed (apt-get install time)`;
}

/** What a command cost: its peak RSS in MiB and the CPU seconds (user and system) of all its threads. */
export interface ChildUsage {
  peakMiB: number;
  cpuSeconds: number;
}

/**
 * Peak resident set size of a command, in MiB: GNU time's `%M`, the kernel's maximum RSS of the
 * process (the same figure as VmHWM at exit), with time wrapping the command directly so no shell
 * stands between them.
 */
export async function peakRssMiB(
  command: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<number> {
  return (await childUsage(command, args, options)).peakMiB;
}

/**
 * `peakRssMiB` and the CPU time the command took, from the same GNU time report: on a busy machine
 * the CPU a command spends says more of its own work than its wall time does.
 */
export async function childUsage(
  command: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildUsage> {
  const report = join(scratchDir, `peak-rss-${process.pid}.txt`);
  try {
    await runChildOk(GNU_TIME, ['-f', '%M %U %S', '-o', report, command, ...args], options);
    const [peak, user, system] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
    return { peakMiB: peak! / 1024, cpuSeconds: user! + system! };
  } finally {
    await rm(report, { force: true });
  }
}
