// What an index reader thread does with the messages of its port: it reads one session at a time,
// in the order asked, and posts each step, waiting for `more` while `STEPS_AHEAD` steps of records, or
// `CHARACTERS_AHEAD` of their text, are untaken. Apart
// from the thread's entry (index-reader-worker.ts), so that it can be run on any port, a test's included.
import type { MessagePort } from 'node:worker_threads';
import { indexSteps } from '../index-steps.js';
import {
  CHARACTERS_AHEAD,
  holdsRecords,
  STEPS_AHEAD,
  type FromIndexReader,
  type ToIndexReader,
} from './index-readers-protocol.js';

/** Reads the sessions asked for on `port`, posting their steps, until the port closes. */
export function serveIndexSteps(port: Pick<MessagePort, 'on' | 'postMessage'>): void {
  let queue = Promise.resolve();
  /** The characters of each step of records posted and not yet taken, oldest first: they are taken in order. */
  const untaken: number[] = [];
  let held = 0;
  let wake: (() => void) | undefined;
  const post = (message: FromIndexReader) => port.postMessage(message);
  /** Whether a step of `characters` must wait: one is always let through, however large. */
  const mustWait = (characters: number) =>
    untaken.length >= STEPS_AHEAD || (untaken.length > 0 && held + characters > CHARACTERS_AHEAD);
  port.on('message', (message: ToIndexReader) => {
    if (message.type === 'more') {
      held -= untaken.shift() ?? 0;
      wake?.();
      return;
    }
    const { id, job } = message;
    queue = queue.then(async () => {
      for await (const step of indexSteps(job)) {
        if (holdsRecords(step)) {
          while (mustWait(step.characters)) await new Promise<void>((resolve) => (wake = resolve));
          untaken.push(step.characters);
          held += step.characters;
        }
        post({ type: 'step', id, step });
      }
      post({ type: 'done', id });
    });
  });
}
