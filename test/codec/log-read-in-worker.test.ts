// A long log is decoded on a worker thread (readLogBatchesInWorker): the reader must get exactly
// what a read on its own thread gives, item for item, and the same error at the same place, whatever
// the damage; a reader that stops early must leave no thread and no open file behind.
import { readlinkSync, readdirSync } from 'node:fs';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import type { LogItem } from '../../src/codec/read-batches.js';
import { readLogBatches, type LogReadingThread } from '../../src/codec/read-log.js';
import {
  IDLE_WORKER_MS,
  liveLogWorkers,
  setLogWorkers,
  takeLogWorker,
} from '../../src/codec/log-worker/log-worker-pool.js';
import { GROUPS_AHEAD } from '../../src/codec/log-worker/log-worker-protocol.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { codecFaults, source } from '../support/faults/codec-faults.js';
import { CPU_CLOCK_ONLY, withinCpuTime } from '../support/cpu-budget.js';
import { copySession, cutLog, editLog, endFrames, logOf, rewriteEveryRecord } from '../support/faults/faults.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

interface Outcome {
  items: LogItem[];
  error?: { name: string; code?: string; message: string; data?: unknown };
}

async function readWith(dir: string, thread: LogReadingThread): Promise<Outcome> {
  const items: LogItem[] = [];
  try {
    for await (const item of readLogBatches(logOf(dir), {}, thread)) items.push(item);
    return { items };
  } catch (error) {
    const { name, message, code, data } = error as { name: string; message: string; code?: string; data?: unknown };
    return { items, error: { name, code, message, data } };
  }
}

/** Both reads of the log, which must be the same; the worker's is returned. */
async function sameOnBothThreads(dir: string): Promise<Outcome> {
  const here = await readWith(dir, 'this');
  const worker = await readWith(dir, 'worker');
  expect(worker).toEqual(here);
  for (const [at, item] of worker.items.entries()) {
    if (item.type === 'batch')
      for (const event of item.batch.events)
        if (event.payload) expect(Buffer.isBuffer(event.payload), `batch ${at}`).toBe(true);
  }
  return worker;
}

/** A session of `batches` batches of twenty messages of about 1.2 KB each: a log of several of the worker's groups. */
async function longSession(batches: number): Promise<string> {
  const written = Array.from({ length: batches }, (_, turn) => ({
    operationId: `rxstore-test:long-${turn}`,
    events: Array.from({ length: 20 }, (_, index) =>
      complete({
        role: index % 2 ? 'assistant' : 'user',
        id: messageId(),
        ...(index % 2 ? {} : { origin: 'user' }),
        content: `turn ${turn} message ${index} ${'words '.repeat(200)}`,
      }),
    ),
  }));
  return (await createSession({ storeDir: join(await tempDir('rxstore-worker-'), 'sessions-v4'), batches: written }))
    .dir;
}

/** Whether this process holds the file open. */
function isOpen(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

describe('a log decoded on a worker thread', () => {
  it.each(FIXTURE_NAMES)('gives what a read on this thread gives: %s', async (name) => {
    const read = await sameOnBothThreads(fixture(name).dir);
    expect(read.error).toBeUndefined();
    expect(read.items.filter((item) => item.type === 'batch').length).toBeGreaterThan(0);
  });

  // Writing and reading a long log twice is seconds of CPU: held to the test budget in CPU time, not the wall clock.
  it(
    'gives the same batches over many groups, read ahead no further than it is asked',
    async () => {
      const read = await withinCpuTime(async () => sameOnBothThreads(await longSession(150)));
      expect(read.items).toHaveLength(150);
      // Three megabytes of payloads: more groups than the worker may post ahead.
      const payloadBytes = read.items.reduce(
        (sum, item) =>
          sum +
          (item.type === 'batch'
            ? item.batch.events.reduce((bytes, event) => bytes + (event.payload?.length ?? 0), 0)
            : 0),
        0,
      );
      expect(payloadBytes).toBeGreaterThan((GROUPS_AHEAD + 1) * 1024 * 1024);
    },
    CPU_CLOCK_ONLY,
  );

  it.each(codecFaults.map((fault) => [fault.name, fault] as const))(
    'stops with the same error where a read on this thread stops: %s',
    async (_name, fault) => {
      const dir = await copySession(source.dir);
      await fault.damage(dir);
      const read = await sameOnBothThreads(dir);
      expect(read.error?.code).toBe(fault.code);
    },
  );

  it('gives the same torn tail', async () => {
    const dir = await copySession(source.dir);
    await cutLog(dir, 5);
    const read = await sameOnBothThreads(dir);
    expect(read.items.at(-1)).toMatchObject({ type: 'torn-tail', tail: { reason: 'unfinished batch' } });
  });

  it('stops with the same error at a flipped bit, after the same batches', async () => {
    const dir = await copySession(source.dir);
    const ends = await endFrames(dir);
    const middle = ends[Math.floor(ends.length / 2)]!;
    await editLog(dir, (log) => {
      log[middle.offset - 3]! ^= 0x10;
      return log;
    });
    const read = await sameOnBothThreads(dir);
    expect(read.error?.code).toBe('RX_DAMAGED_STORE');
    expect(read.items.length).toBeGreaterThan(0);
  });

  it('says so when a batch it gave is not there when the log is read again after damage', async () => {
    // Damage after the first batch: the worker gives that batch, then stops, and the log is read again here.
    const damageSecondBatch = async (dir: string) => {
      const ends = await endFrames(dir);
      await editLog(dir, (log) => {
        log[ends[1]!.offset - 3]! ^= 0x10;
        return log;
      });
    };
    const dir = await copySession(source.dir);
    // The same log with every batch rewritten (and signed again): its first batch is another.
    const other = await copySession(source.dir);
    await rewriteEveryRecord(other, (text) => text.replace('"commitId":"', '"commitId":"x'));
    await damageSecondBatch(dir);
    await damageSecondBatch(other);
    const read = async () => {
      let given = 0;
      for await (const item of readLogBatches(logOf(dir), {}, 'worker')) {
        given += 1;
        if (given === 1 && item.type === 'batch') await writeFile(logOf(dir), await readFile(logOf(other)));
      }
    };
    await expect(read()).rejects.toThrow(/^v4 batch at 0 changed while the log was read$/);
  });

  it(
    'leaves no open log behind when the reader stops after the first batch, and reads the next log whole',
    async () => {
      await withinCpuTime(async () => {
        const dir = await longSession(150);
        for await (const item of readLogBatches(logOf(dir), {}, 'worker')) {
          expect(item.type).toBe('batch');
          break;
        }
        expect(isOpen(logOf(dir))).toBe(false);
        // The worker is kept for the next read: nothing of the stopped one may reach it.
        expect((await sameOnBothThreads(dir)).items).toHaveLength(150);
      });
    },
    CPU_CLOCK_ONLY,
  );

  it('ends a worker left idle for IDLE_WORKER_MS, and starts another for the next read', async () => {
    // No idle worker of an earlier test (their timers are not this test's), and room for one.
    setLogWorkers(0);
    setLogWorkers(1);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(liveLogWorkers()).toBe(0);
      const dir = fixture('tool-calls').dir;
      await readWith(dir, 'worker');
      expect(liveLogWorkers()).toBe(1);
      vi.advanceTimersByTime(IDLE_WORKER_MS - 1);
      expect(liveLogWorkers()).toBe(1);
      vi.advanceTimersByTime(1);
      expect(liveLogWorkers()).toBe(0);
      expect((await sameOnBothThreads(dir)).error).toBeUndefined();
      expect(liveLogWorkers()).toBe(1);
    } finally {
      vi.useRealTimers();
      setLogWorkers(Math.max(0, availableParallelism() - 1));
    }
  });

  it.each(['this', 'worker'] as const)(
    'says so when the log is cut shorter while it is read (%s thread)',
    async (thread) => {
      // Longer than the worker reads ahead of its reader: the cut comes before the worker reaches the end.
      const dir = await longSession(500);
      const cutTo = 500_000;
      const read = async () => {
        let first = true;
        for await (const item of readLogBatches(logOf(dir), {}, thread)) {
          expect(item.type).toBe('batch');
          if (first) await truncate(logOf(dir), cutTo);
          first = false;
        }
      };
      await expect(read()).rejects.toThrow(
        /^(the log was cut to 500000 bytes while it was read, past \d+|v4 batch at \d+ changed while the log was read)$/,
      );
    },
  );

  it('setLogWorkers lowered during a read: the worker reading then ends with it, and no other is taken', async () => {
    setLogWorkers(0);
    setLogWorkers(1);
    try {
      const dir = await longSession(150);
      let during = -1;
      for await (const item of readLogBatches(logOf(dir), {}, 'worker')) {
        if (during === -1) {
          during = liveLogWorkers();
          setLogWorkers(0);
        }
        void item;
      }
      expect(during).toBe(1);
      expect(liveLogWorkers()).toBe(0);
      expect(takeLogWorker()).toBeUndefined();
    } finally {
      setLogWorkers(Math.max(0, availableParallelism() - 1));
    }
  });

  it('setLogWorkers takes a whole number of 0 or more, and says what it got otherwise', () => {
    for (const [count, got] of [
      [-1, '-1'],
      [1.5, '1.5'],
      ['2', 'a value of type string'],
      [Symbol('x'), 'a value of type symbol'],
      [Object.create(null), 'a value of type object'],
    ] as const) {
      expect(() => setLogWorkers(count as number)).toThrow(
        `log workers: expected a whole number of 0 or more, got ${got}`,
      );
    }
  });
});
