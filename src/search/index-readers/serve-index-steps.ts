// What an index reader thread does with the messages of its port: it reads one session at a time,
// in the order asked, and posts each step, waiting for `more` while `STEPS_AHEAD` steps of records are untaken. Apart
// from the thread's entry (index-reader-worker.ts), so that it can be run on any port, a test's included.
import type { MessagePort } from 'node:worker_threads';
import { indexSteps } from '../index-steps.js';
import { holdsRecords, STEPS_AHEAD, type FromIndexReader, type ToIndexReader } from './index-readers-protocol.js';

/** Reads the sessions asked for on `port`, posting their steps, until the port closes. */
export function serveIndexSteps(port: Pick<MessagePort, 'on' | 'postMessage'>): void {
  let queue = Promise.resolve();
  /** Steps that may still be posted before the update takes one. */
  let credit = STEPS_AHEAD;
  let wake: (() => void) | undefined;
  const post = (message: FromIndexReader) => port.postMessage(message);
  port.on('message', (message: ToIndexReader) => {
    if (message.type === 'more') {
      credit += 1;
      wake?.();
      return;
    }
    const { id, job } = message;
    queue = queue.then(async () => {
      for await (const step of indexSteps(job)) {
        if (holdsRecords(step)) {
          while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
          credit -= 1;
        }
        post({ type: 'step', id, step });
      }
      post({ type: 'done', id });
    });
  });
}
