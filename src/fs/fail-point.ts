import { appendFileSync } from 'node:fs';

/**
 * A test hook for crash tests (as SQLite's crash tests and TiKV's fail points): each durable step
 * of a writer calls `failPoint` with its name, and each write of bytes calls `writePoint`. Off
 * unless the environment, read once at start-up, switches it on:
 * - `RXSTORE_FAIL_POINT=<name>[:<nth hit>]` kills the process with SIGKILL at that hit (the first
 *   by default): no cleanup runs, as after a power cut;
 * - `RXSTORE_FAIL_POINT=<name>:<nth hit>:short` makes that write write only part of its bytes, as
 *   a write to a nearly full disk does; `…:enospc` makes it fail with ENOSPC, as on a full disk;
 * - `RXSTORE_FAIL_POINT_TRACE=<file>` appends each point passed to the file, one name a line, so
 *   a test knows every step of a clean run and sees where a killed one stopped.
 * Off, both are empty functions.
 */
const armed = /^(?<name>[^:]+)(?::(?<hit>[1-9]\d*))?(?::(?<fault>kill|short|enospc))?$/.exec(
  process.env.RXSTORE_FAIL_POINT ?? '',
)?.groups;
const trace = process.env.RXSTORE_FAIL_POINT_TRACE || undefined;
const hits = new Map<string, number>();

/** What a write armed at its point does instead of writing all it is asked to. */
export type WriteFault = 'short' | 'enospc';

function reach(name: string): WriteFault | undefined {
  const hit = (hits.get(name) ?? 0) + 1;
  hits.set(name, hit);
  if (trace !== undefined) appendFileSync(trace, `${name}\n`);
  if (name !== armed?.name || hit !== Number(armed.hit ?? 1)) return undefined;
  if (armed.fault === 'short' || armed.fault === 'enospc') return armed.fault;
  process.kill(process.pid, 'SIGKILL');
  return undefined;
}

export const failPoint: (name: string) => void = armed || trace ? reach : () => undefined;

/** A write's point: the fault armed for this hit, if any (a kill kills here, as `failPoint` does). */
export const writePoint: (name: string) => WriteFault | undefined = armed || trace ? reach : () => undefined;
