// What a log worker's thread does with the messages of its port (see log-worker-protocol.ts): it decodes
// one log at a time and posts its items in groups, no further ahead than the reader has asked for. Apart
// from the thread's entry (log-worker.ts), so that it can be run on any port, a test's included.
import type { MessagePort } from 'node:worker_threads';
import type { LogItem } from '../read-batches.js';
import { readLogBatchesOnThisThread } from '../read-log.js';
import { GROUPS_AHEAD, type FromLogWorker, type ToLogWorker } from './log-worker-protocol.js';

/** A group is posted once it holds this many payload bytes or items: the cost of a message vanishes. */
export const GROUP_BYTES = 1024 * 1024;
export const GROUP_ITEMS = 256;

/** Answers the reads asked for on `port`, one at a time, until the port closes. */
export function serveLogReads(port: Pick<MessagePort, 'on' | 'postMessage'>): void {
  let credits = 0;
  // Stryker disable next-line BooleanLiteral: every read sets it again before anything reads it
  let stopped = false;
  let wake: (() => void) | undefined;

  port.on('message', (message: ToLogWorker) => {
    if (message.type === 'read') {
      credits = GROUPS_AHEAD;
      stopped = false;
      void read(message.logPath, message.options).then((last) => port.postMessage(last satisfies FromLogWorker));
      return;
    }
    if (message.type === 'more') credits += 1;
    else stopped = true;
    wake?.();
  });

  /** Reads the log and posts its items; returns the message that ends the read. */
  async function read(
    logPath: string,
    options: Extract<ToLogWorker, { type: 'read' }>['options'],
  ): Promise<FromLogWorker> {
    let group: LogItem[] = [];
    let ending: FromLogWorker = { type: 'end' };
    try {
      let bytes = 0;
      // The first item goes at once, alone: a reader waiting for the first record does not wait for a megabyte.
      let first = true;
      for await (const item of readLogBatchesOnThisThread(logPath, options)) {
        group.push(item);
        if (item.type === 'batch') for (const event of item.batch.events) bytes += event.payload?.length ?? 0;
        if (!first && bytes < GROUP_BYTES && group.length < GROUP_ITEMS) continue;
        first = false;
        if (!(await post(group))) return { type: 'stopped' };
        group = [];
        bytes = 0;
      }
    } catch {
      // The batches before the failure are the reader's; it reads the log again on its own thread past
      // them, which throws this error itself.
      ending = { type: 'failed' };
    }
    return group.length > 0 && !(await post(group)) ? { type: 'stopped' } : ending;
  }

  /** Posts a group once the reader has room for it; false when the reader has stopped. */
  async function post(items: LogItem[]): Promise<boolean> {
    while (credits === 0 && !stopped) await new Promise<void>((resolve) => (wake = resolve));
    if (stopped) return false;
    credits -= 1;
    port.postMessage({ type: 'items', items } satisfies FromLogWorker, [packPayloads(items)]);
    return true;
  }
}

/**
 * Moves the group's payloads into one block that is handed over, not copied: each payload's own buffer
 * (most share Node's pool of 8 KiB slabs with other allocations) would be copied whole, slab by slab.
 */
function packPayloads(items: LogItem[]): ArrayBuffer {
  let total = 0;
  for (const item of items)
    if (item.type === 'batch') for (const event of item.batch.events) total += event.payload?.length ?? 0;
  // Its own memory, never a pool slab: the block is handed over whole.
  const block = new Uint8Array(total);
  let at = 0;
  for (const item of items) {
    if (item.type !== 'batch') continue;
    for (const event of item.batch.events) {
      if (!event.payload) continue;
      block.set(event.payload, at);
      event.payload = Buffer.from(block.buffer, at, event.payload.length);
      at += event.payload.length;
    }
  }
  return block.buffer;
}
