// What a log worker's thread does, run on this thread over a message channel (the worker runs the same
// `serveLogReads` on its parent's port): the items of a read on this thread, in groups no further ahead than
// the reader asked for, the first alone, each group's payloads in one block handed over; then exactly one
// ending. The tests of the worker itself are in log-read-in-worker.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogItem } from '../../src/codec/read-batches.js';
import { readLogBatchesOnThisThread } from '../../src/codec/read-log.js';
import { GROUPS_AHEAD, type FromLogWorker } from '../../src/codec/log-worker/log-worker-protocol.js';
import { GROUP_BYTES, GROUP_ITEMS, serveLogReads } from '../../src/codec/log-worker/serve-log-reads.js';
import { restoreBuffers } from '../../src/codec/log-worker/read-log-in-worker.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { copySession, cutLog, endFrames, logOf } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

const opened: MessagePort[] = [];
afterEach(() => {
  for (const port of opened.splice(0)) port.close();
});

/** A served port, and the reader's end of it: messages as they come, one at a time. */
function served() {
  const { port1, port2 } = new MessageChannel();
  opened.push(port1, port2);
  serveLogReads(port1);
  const arrived: FromLogWorker[] = [];
  let wake: (() => void) | undefined;
  port2.on('message', (message: FromLogWorker) => {
    arrived.push(message);
    wake?.();
  });
  const next = async (): Promise<FromLogWorker> => {
    while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return arrived.shift()!;
  };
  return { port: port2, next };
}

/** A log read on this thread, the reference. */
async function readHere(log: string): Promise<LogItem[]> {
  const items: LogItem[] = [];
  for await (const item of readLogBatchesOnThisThread(log, {})) items.push(item);
  return items;
}

/** A session of `batches` batches of `messages` messages of about `bytes` bytes each. */
async function session(batches: number, messages: number, bytes: number): Promise<string> {
  const written = Array.from({ length: batches }, (_, turn) => ({
    operationId: `rxstore-test:serve-${turn}`,
    events: Array.from({ length: messages }, () =>
      complete({ role: 'user', id: messageId(), origin: 'user', content: 'x'.repeat(bytes) }),
    ),
  }));
  return (await createSession({ storeDir: join(await tempDir('rxstore-serve-'), 'sessions-v4'), batches: written }))
    .dir;
}

/** The items with each payload as its length and digest: deep equality over megabytes of bytes is slow. */
const comparable = (items: LogItem[]) =>
  items.map((item) =>
    item.type !== 'batch'
      ? item
      : {
          ...item,
          batch: {
            ...item.batch,
            events: item.batch.events.map((event) => ({
              ...event,
              payload:
                event.payload &&
                `${Buffer.isBuffer(event.payload)} ${createHash('sha256').update(event.payload).digest('hex')}`,
            })),
          },
        },
  );

/** Reads the whole log, asking for more after each group; the groups and the ending. */
async function readAll(reader: ReturnType<typeof served>, log: string) {
  reader.port.postMessage({ type: 'read', logPath: log, options: {} });
  const groups: LogItem[][] = [];
  for (let message = await reader.next(); ; message = await reader.next()) {
    if (message.type !== 'items') return { groups, ending: message.type };
    // As the reader makes them: each payload a Buffer again (it crossed as a view of its group's block).
    for (const item of message.items) if (item.type === 'batch') restoreBuffers(item.batch);
    groups.push(message.items);
    reader.port.postMessage({ type: 'more' });
  }
}

describe('a log worker serving reads', () => {
  it('gives the items of a read on this thread: the first alone, then groups of 256 items', async () => {
    const dir = await session(600, 1, 10);
    const { groups, ending } = await readAll(served(), logOf(dir));
    expect(ending).toBe('end');
    expect(comparable(groups.flat())).toEqual(comparable(await readHere(logOf(dir))));
    expect(groups.map((group) => group.length)).toEqual([1, GROUP_ITEMS, GROUP_ITEMS, 600 - 1 - 2 * GROUP_ITEMS]);
  });

  it('closes a group at 1 MiB of payloads, in one block handed over per group', async () => {
    // Batches of four inline payloads of about 50 KB: a group closes with the batch that takes it to 1 MiB.
    const dir = await session(30, 4, 50_000);
    const { groups, ending } = await readAll(served(), logOf(dir));
    expect(ending).toBe('end');
    expect(comparable(groups.flat())).toEqual(comparable(await readHere(logOf(dir))));
    const payloadBytes = (group: LogItem[]) =>
      group.reduce(
        (sum, item) =>
          sum +
          (item.type === 'batch' ? item.batch.events.reduce((s, event) => s + (event.payload?.length ?? 0), 0) : 0),
        0,
      );
    // The first item alone; then each group closes with the item that takes its payloads to 1 MiB.
    const expected: number[] = [];
    let count = 0;
    let bytes = 0;
    for (const [at, item] of (await readHere(logOf(dir))).entries()) {
      count += 1;
      bytes += payloadBytes([item]);
      if (at > 0 && bytes < GROUP_BYTES && count < GROUP_ITEMS) continue;
      expected.push(count);
      count = 0;
      bytes = 0;
    }
    if (count > 0) expected.push(count);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    expect(groups.map((group) => group.length)).toEqual(expected);
    for (const group of groups) {
      const buffers = new Set(
        group.flatMap((item) => (item.type === 'batch' ? item.batch.events.map((event) => event.payload!.buffer) : [])),
      );
      expect(buffers.size).toBe(1);
      expect([...buffers][0]!.byteLength).toBe(payloadBytes(group));
    }
  });

  it(`posts no more than ${GROUPS_AHEAD} groups before the reader asks for more, and one more for each ask`, async () => {
    const dir = await session(900, 1, 10);
    const reader = served();
    reader.port.postMessage({ type: 'read', logPath: logOf(dir), options: {} });
    for (let group = 0; group < GROUPS_AHEAD; group += 1) expect((await reader.next()).type).toBe('items');
    reader.port.postMessage({ type: 'more' });
    expect((await reader.next()).type).toBe('items');
    // Told to stop now, it has posted nothing past what was asked for: the next message ends the read.
    reader.port.postMessage({ type: 'stop' });
    expect(await reader.next()).toEqual({ type: 'stopped' });
  });

  it('ends a read the reader stops with `stopped`, and serves the next read on the same port', async () => {
    const dir = await session(600, 1, 10);
    const reader = served();
    reader.port.postMessage({ type: 'read', logPath: logOf(dir), options: {} });
    expect((await reader.next()).type).toBe('items');
    reader.port.postMessage({ type: 'stop' });
    // At most the group it had decoded ahead comes before the ending.
    let message = await reader.next();
    if (message.type === 'items') message = await reader.next();
    expect(message).toEqual({ type: 'stopped' });
    const again = await readAll(reader, logOf(dir));
    expect(again.ending).toBe('end');
    expect(comparable(again.groups.flat())).toEqual(comparable(await readHere(logOf(dir))));
  });

  it('gives the batches before damage, then `failed` (the reader reads on from there itself)', async () => {
    const plain = fixture('plain-chat');
    const dir = await copySession(plain.dir);
    const ends = await endFrames(dir);
    // Cut inside the last batch's end frame: a torn tail, which a read gives as an item, then the end.
    await cutLog(dir, 3);
    const torn = await readAll(served(), logOf(dir));
    expect(torn.ending).toBe('end');
    expect(comparable(torn.groups.flat())).toEqual(comparable(await readHere(logOf(dir))));
    expect(torn.groups.flat().at(-1)!.type).toBe('torn-tail');
    // A flipped byte inside the last batch: the batches before it, then `failed`.
    const damaged = await copySession(plain.dir);
    const bytes = await readFile(logOf(damaged));
    const at = ends.at(-1)!.offset - 5;
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(logOf(damaged), bytes);
    const failed = await readAll(served(), logOf(damaged));
    expect(failed.ending).toBe('failed');
    expect(failed.groups.flat().map((item) => item.type === 'batch' && item.batch.offset)).toEqual(
      ends.slice(0, -1).map((_, index) => (index === 0 ? 0 : ends[index - 1]!.offset + ends[index - 1]!.bytes)),
    );
  });

  it('passes an event whose payload is in the content store (no bytes inline) as it is', async () => {
    const dir = logOf(fixture('payload-ref').dir);
    const { groups, ending } = await readAll(served(), dir);
    expect(ending).toBe('end');
    const items = groups.flat();
    expect(
      items.some(
        (item) => item.type === 'batch' && item.batch.events.some((event) => event.payloadRef && !event.payload),
      ),
    ).toBe(true);
    expect(comparable(items)).toEqual(comparable(await readHere(dir)));
  });

  it('ends the read of a log with no batch with `end` alone, and one that is missing with `failed`', async () => {
    const empty = join(await tempDir('rxstore-serve-empty-'), 'events.frames');
    await writeFile(empty, '');
    expect(await readAll(served(), empty)).toEqual({ groups: [], ending: 'end' });
    expect(await readAll(served(), join(await tempDir('rxstore-serve-none-'), 'events.frames'))).toEqual({
      groups: [],
      ending: 'failed',
    });
  });
});
