import { appendFileSync } from 'node:fs';

/**
 * A test hook for crash tests (as SQLite's crash tests and TiKV's fail points): each durable step
 * of a writer calls `failPoint` with its name. Off unless the environment, read once at start-up,
 * switches it on:
 * - `RXSTORE_FAIL_POINT=<name>[:<nth hit>]` kills the process with SIGKILL at that hit (the first
 *   by default): no cleanup runs, as after a power cut;
 * - `RXSTORE_FAIL_POINT_TRACE=<file>` appends each point passed to the file, one name a line, so
 *   a test knows every step of a clean run and sees where a killed one stopped.
 * Off, it is an empty function.
 */
const armed = /^(?<name>[^:]+)(?::(?<hit>[1-9]\d*))?$/.exec(process.env.RXSTORE_FAIL_POINT ?? '')?.groups;
const trace = process.env.RXSTORE_FAIL_POINT_TRACE || undefined;
const hits = new Map<string, number>();

function reach(name: string): void {
  const hit = (hits.get(name) ?? 0) + 1;
  hits.set(name, hit);
  if (trace !== undefined) appendFileSync(trace, `${name}\n`);
  if (name === armed?.name && hit === Number(armed.hit ?? 1)) process.kill(process.pid, 'SIGKILL');
}

export const failPoint: (name: string) => void = armed || trace ? reach : () => undefined;
