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
  const report = join(scratchDir, `peak-rss-${process.pid}.txt`);
  try {
    await runChildOk(GNU_TIME, ['-f', '%M', '-o', report, command, ...args], options);
    return Number((await readFile(report, 'utf8')).trim().split('\n').at(-1)) / 1024;
  } finally {
    await rm(report, { force: true });
  }
}
