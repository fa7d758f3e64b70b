import { watch } from 'node:fs';
import type { Cursor } from './cursor.js';
import type { ResolvedBatch } from '../reading/read-events.js';
import { replayedBatchesSince, startSince } from './read-since.js';
import { checkFollowOptions } from '../../errors/caller-input.js';

/** Where `followSession` starts, how it waits for new batches (watching the log and polling, or polling alone), and how it is stopped. */
export interface FollowOptions {
  /** Start after this cursor (validated as `readSince` validates it); from the beginning of the log without one. */
  cursor?: Cursor;
  /** Ends the iteration cleanly. */
  signal?: AbortSignal;
  /** Look again at least this often, for file systems whose change notifications do not arrive. */
  pollMs?: number;
  /**
   * Wait for file-system notifications as well as polling (default true). `false` polls only: for
   * file systems that never notify (network mounts), where a watcher would only cost a handle.
   */
  watch?: boolean;
}

/**
 * Follows a live session: yields each batch once, as soon as its `batch/end` is on disk, never
 * an unfinished one, with the cursor after it. Woken by file-system notifications on the session
 * directory, with a polling fallback (or by polling alone); returns when the signal aborts.
 */
export async function* followSession(
  sessionDir: string,
  sessionId: string,
  options: FollowOptions = {},
): AsyncGenerator<{ batch: ResolvedBatch; cursor: Cursor }> {
  checkFollowOptions(options);
  const { signal, pollMs = 1000, watch: useWatch = true } = options;
  let cursor = options.cursor;
  let wake: (() => void) | undefined;
  let changed = true;
  const notify = () => {
    changed = true;
    wake?.();
  };
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: an option of the file-system watcher or the abort listener: the watcher only wakes the loop early, which …
  const watcher = useWatch ? watch(sessionDir, { persistent: false }, notify) : undefined;
  // Stryker disable next-line StringLiteral: an option of the file-system watcher or the abort listener: the watcher only wakes the loop early, which …
  watcher?.on('error', () => undefined);
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: an option of the file-system watcher or the abort listener: the watcher only wakes the loop early, which …
  signal?.addEventListener('abort', notify, { once: true });
  try {
    while (!signal?.aborted) {
      if (changed) {
        changed = false;
        // Each batch as it is read (the backlog too), with the cursor after it, so a consumer that
        // stops mid-way resumes exactly there.
        const start = await startSince(sessionDir, sessionId, cursor);
        // A log written in place and verified again: the next look is a stat again, not another verification.
        if (start.restamped) cursor = start.cursor;
        for await (const { batch, cursor: after } of replayedBatchesSince(sessionDir, sessionId, start)) {
          if (signal?.aborted) return;
          cursor = after();
          yield { batch, cursor };
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          changed = true;
          resolve();
        }, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    // Stryker disable next-line BlockStatement: a try/finally that closes a file or a watcher: what is left open does not change an answer, and the …
  } finally {
    watcher?.close();
    // Stryker disable next-line StringLiteral: an option of the file-system watcher or the abort listener: the watcher only wakes the loop early, which …
    signal?.removeEventListener('abort', notify);
  }
}
