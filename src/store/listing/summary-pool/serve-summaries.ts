// What a summary worker's thread does with the messages of its port: it summarises one copy at a
// time, in the order asked, and posts each read. Apart from the thread's entry (summary-worker.ts),
// so that it can be run on any port, a test's included.
import type { MessagePort } from 'node:worker_threads';
import { summariseCopy } from '../summarise-copy.js';
import type { FromSummaryWorker, ToSummaryWorker } from './summary-pool-protocol.js';

/** Answers the summaries asked for on `port`, one at a time (one log's memory at once), until the port closes. */
export function serveSummaries(port: Pick<MessagePort, 'on' | 'postMessage'>): void {
  let queue = Promise.resolve();
  port.on('message', (message: ToSummaryWorker) => {
    queue = queue.then(async () => {
      const answer: FromSummaryWorker = await summariseCopy(message.copy, message.options).then(
        (read) => ({ type: 'read', job: message.job, read }),
        () => ({ type: 'failed', job: message.job }),
      );
      port.postMessage(answer);
    });
  });
}
