import type { LogItem } from '../read-batches.js';
import type { ReadLogOptions } from '../read-log-options.js';

/**
 * What passes between a reader and a log worker (`log-worker.ts`). A worker reads one log at a time:
 * told to `read`, it posts groups of decoded items, no more than `GROUPS_AHEAD` beyond those the reader
 * has taken (each taken group is answered with `more`), and ends every read with exactly one of `end`,
 * `failed` or `stopped`; then it waits for the next.
 */
export type ToLogWorker =
  | { type: 'read'; logPath: string; options: ReadLogOptions }
  | { type: 'more' }
  | { type: 'stop' };

/** `failed`: the read could not go on (damage, a system error); the reader reads the log again itself. */
export type FromLogWorker =
  | { type: 'items'; items: LogItem[] }
  | { type: 'end' }
  | { type: 'failed' }
  | { type: 'stopped' };

/** Groups a worker may post before the reader takes them: it decodes the next while the reader uses one. */
export const GROUPS_AHEAD = 2;
