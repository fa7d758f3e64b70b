import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Bytes a run may read before it is taken to read something that never ends (`/dev/zero` planted as a file):
 * a thousand times what a test's state root holds, reached by such a read in well under a second.
 */
export const READ_WITHOUT_END_BYTES = 256 * 1024 * 1024;

/** Bytes process `pid` has read so far (Linux: `rchar` of /proc/<pid>/io); 0 once it is gone or on another system. */
export function bytesRead(pid: number): number {
  try {
    const io = readFileSync(join('/proc', String(pid), 'io'), 'utf8');
    return Number(/^rchar: (\d+)$/m.exec(io)?.[1] ?? 0);
  } catch {
    return 0;
  }
}
