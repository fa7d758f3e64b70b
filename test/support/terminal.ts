import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { rxstoreBin } from './cli-child.js';

/** Whether `script` is here to give rxstore a pseudo-terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0;

/** Printed by the shell after rxstore has exited: a run whose output lacks it lost its tail in `script`, not in rxstore. */
const END = '__terminal_end__';
/** Runs of `script` that may lose their tail before the test gives up. */
const TRIES = 3;

/** Runs `rxstore <args>` with its standard output on a pseudo-terminal `columns` wide; what the terminal showed, lines without CR. */
export function onTerminal(columns: number, args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const quoted = [process.execPath, rxstoreBin, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  const shell = `stty cols ${columns} rows 50; ${quoted}; status=$?; printf '\\n${END}\\n'; exit $status`;
  for (let tries = 1; ; tries += 1) {
    const run = spawnSync('script', ['-q', '-e', '-c', shell, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(run.status, run.stderr).toBe(0);
    const shown = run.stdout.replaceAll('\r', '');
    const end = shown.lastIndexOf(`\n${END}\n`);
    // `script` on a loaded machine can stop reading the terminal before the last bytes written to it: the run
    // is taken again, since what rxstore wrote is then unknown. What rxstore wrote before the end is all there.
    if (end >= 0) return shown.slice(0, end).trimEnd().split('\n');
    expect(tries, `script lost the end of what the terminal showed ${TRIES} times:\n${shown}`).toBeLessThan(TRIES);
  }
}
