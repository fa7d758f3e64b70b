import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { rxstoreBin } from './cli-child.js';

/** Whether `script` is here to give rxstore a pseudo-terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs `rxstore <args>` with its standard output on a pseudo-terminal `columns` wide; what the terminal showed, lines without CR. */
export function onTerminal(columns: number, args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const quoted = [process.execPath, rxstoreBin, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  const run = spawnSync('script', ['-q', '-e', '-c', `stty cols ${columns} rows 50; ${quoted}`, '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.replaceAll('\r', '').trimEnd().split('\n');
}
