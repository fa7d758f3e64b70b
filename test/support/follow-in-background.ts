// A follower run in the background by a test, and a way to wait for what the test expects of it with no
// clock: `until` resolves when what it has given so far meets the condition, or fails at once when the
// follower ends first (with its error). Only the test's own timeout bounds the wait, so a slow machine
// makes the test slower, never wrong.

export interface BackgroundFollower<T> {
  /** Everything the follower has given, in order. */
  seen: T[];
  /** Settles when the follower ends: after `stop`, or with its error. */
  done: Promise<void>;
  stop(): void;
  /** Waits until `holds(seen)`; `what` names the wait in the error when the follower ends first. */
  until(holds: (seen: T[]) => boolean, what: string): Promise<void>;
}

export function followInBackground<T>(follow: (signal: AbortSignal) => AsyncIterable<T>): BackgroundFollower<T> {
  const controller = new AbortController();
  const seen: T[] = [];
  const waiters = new Set<() => void>();
  let ended: { error?: unknown } | undefined;
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const done = (async () => {
    try {
      for await (const item of follow(controller.signal)) {
        seen.push(item);
        wake();
      }
      ended = {};
    } catch (error) {
      ended = { error };
      throw error;
    } finally {
      wake();
    }
  })();
  // Observed, so that a rejection before the test awaits it is not reported as unhandled.
  done.catch(() => undefined);
  const until = (holds: (seen: T[]) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (holds(seen)) {
          waiters.delete(check);
          resolve();
        } else if (ended) {
          waiters.delete(check);
          const how = ended.error === undefined ? 'returned' : `threw ${String(ended.error)}`;
          reject(new Error(`the follower ${how} after ${seen.length} items, before ${what}`));
        }
      };
      waiters.add(check);
      check();
    });
  return { seen, done, stop: () => controller.abort(), until };
}
