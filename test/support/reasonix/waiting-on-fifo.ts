// Whether a process waits in the open of a FIFO for the other end (Linux). The kernel parks a thread
// opening a FIFO with no one at the other end in `wait_for_partner`, and `/proc/<pid>/task/<tid>/wchan`
// names where a sleeping thread waits: a Go program's open blocks one of its threads there.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** True when a thread of `pid` is seen waiting in a FIFO's open; false when none is, or the process is gone. */
export function waitingOnFifo(pid: number): boolean {
  const tasks = join('/proc', String(pid), 'task');
  let threads: string[];
  try {
    threads = readdirSync(tasks);
  } catch {
    return false;
  }
  return threads.some((thread) => {
    try {
      return readFileSync(join(tasks, thread, 'wchan'), 'utf8') === 'wait_for_partner';
    } catch {
      return false;
    }
  });
}
