// Sessions read cold on worker threads (SummaryPool): a listing must give exactly what a listing on one
// thread gives, row for row and in the same order; a damaged session is its own row and sinks no other;
// a thread that dies, or never starts, leaves its copies to the listing's own thread.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { listSessions } from '../../src/store/listing/list-sessions.js';
import { defaultSummaryThreads, SummaryPool } from '../../src/store/listing/summary-pool/summary-pool.js';
import { startThread } from '../../src/codec/log-worker/start-thread.js';
import { summariseCopy } from '../../src/store/listing/summarise-copy.js';
import { findSessionCopies } from '../../src/store/listing/find-session-copies.js';
import type { V4Copy } from '../../src/store/listing/session-copy.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { cutLog, endFrames, rewriteRecord } from '../support/faults/faults.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

/** A store of `count` sessions, each of a few turns; the third has a flipped byte, the fifth a torn tail. */
async function storeOf(count: number): Promise<{ storeDir: string; damaged: string; torn: string }> {
  const storeDir = join(await tempDir('rxstore-pool-'), 'sessions-v4');
  const dirs: string[] = [];
  for (let at = 0; at < count; at += 1) {
    const batches = Array.from({ length: 3 }, (_, turn) => ({
      operationId: `rxstore-test:pool-${at}-${turn}`,
      events: [
        complete({ role: 'user', id: messageId(), origin: 'user', content: `session ${at} turn ${turn}` }),
        complete({ role: 'assistant', id: messageId(), content: `answer ${at}.${turn}` }),
      ],
    }));
    dirs.push((await createSession({ storeDir, batches })).dir);
  }
  // The last batch's end says another digest: the batch no longer verifies. (A byte flipped in its compressed
  // record instead was found by zstd as corruption in some runs, by the digest in others: the ids are random.)
  const lastEnd = (await endFrames(dirs[2]!)).at(-1)!;
  await rewriteRecord(dirs[2]!, lastEnd, { sha256: '0'.repeat(64) });
  await cutLog(dirs[4]!, 7);
  return { storeDir, damaged: dirs[2]!, torn: dirs[4]! };
}

async function list(storeDir: string, threads: number): Promise<ListedSession[]> {
  const listing = await listSessions([{ kind: 'store', path: storeDir }], { platform: 'linux', threads });
  const rows: ListedSession[] = [];
  for await (const row of listing.sessions) rows.push(row);
  return rows;
}

async function v4Copies(storeDir: string): Promise<V4Copy[]> {
  const found = await findSessionCopies([{ kind: 'store', path: storeDir }]);
  return found.copies
    .filter((copy): copy is V4Copy => copy.format === 'v4')
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('a listing that reads sessions on worker threads', () => {
  it('gives the rows, the order and the verdicts a listing on one thread gives', async () => {
    const { storeDir, damaged, torn } = await storeOf(14);
    const here = await list(storeDir, 0);
    const threaded = await list(storeDir, 2);
    expect(threaded).toEqual(here);
    expect(threaded).toHaveLength(14);
    const status = new Map(threaded.map((row) => [row.path, row.status]));
    expect(status.get(damaged)).toBe('damaged');
    expect(status.get(torn)).toBe('torn-tail');
    expect([...status.values()].filter((each) => each === 'ok')).toHaveLength(12);
    expect(threaded.find((row) => row.path === damaged)?.problem).toMatch(/checksum/);
  });

  it('reads on its threads what summariseCopy reads here, a damaged copy included', async () => {
    const { storeDir } = await storeOf(6);
    const copies = await v4Copies(storeDir);
    const pool = new SummaryPool({ threads: 2, readsBeforeThreads: 0 });
    try {
      const options = { verify: false, registry: undefined };
      const threaded = await Promise.all(copies.map((copy) => pool.summarise(copy, options)));
      expect(pool.liveThreads).toBe(2);
      const here = await Promise.all(copies.map((copy) => summariseCopy(copy, options)));
      expect(threaded).toEqual(here);
      expect(threaded.map((read) => read.summary.status)).toContain('damaged');
    } finally {
      pool.end();
    }
    expect(pool.liveThreads).toBe(0);
  });

  it("reads a share of the copies on the caller's thread, beside one worker per other core", async () => {
    const { storeDir } = await storeOf(8);
    const copies = await v4Copies(storeDir);
    let answeredThere = 0;
    const pool = new SummaryPool({
      threads: 1,
      readsBeforeThreads: 0,
      start: () => {
        const worker = startThread(
          new URL('../../src/store/listing/summary-pool/summary-pool.ts', import.meta.url).href,
          'summary-worker',
        );
        worker?.on('message', () => (answeredThere += 1));
        return worker;
      },
    });
    const options = { verify: false, registry: undefined };
    try {
      const threaded = await Promise.all(copies.map((copy) => pool.summarise(copy, options)));
      expect(threaded).toEqual(await Promise.all(copies.map((copy) => summariseCopy(copy, options))));
      // Each copy goes to the reader with the fewest waiting: both read some.
      expect(answeredThere).toBeGreaterThan(0);
      expect(answeredThere).toBeLessThan(copies.length);
    } finally {
      pool.end();
    }
    // The caller's thread is a reader: a pool starts one worker fewer than the cores.
    expect(defaultSummaryThreads()).toBe(Math.max(0, availableParallelism() - 1));
  });

  it('reads here what a thread that dies was asked', async () => {
    const { storeDir } = await storeOf(5);
    const copies = await v4Copies(storeDir);
    let started = 0;
    const pool = new SummaryPool({
      threads: 1,
      readsBeforeThreads: 0,
      start: () => {
        started += 1;
        return new Worker('process.exit(3)', { eval: true });
      },
    });
    const options = { verify: false, registry: undefined };
    try {
      const threaded = await Promise.all(copies.map((copy) => pool.summarise(copy, options)));
      expect(threaded).toEqual(await Promise.all(copies.map((copy) => summariseCopy(copy, options))));
      // The dead thread is not replaced: what killed it would kill the next.
      expect(started).toBe(1);
      expect(pool.liveThreads).toBe(0);
    } finally {
      pool.end();
    }
  });

  it('reads every copy here when no thread can start', async () => {
    const { storeDir } = await storeOf(5);
    const copies = await v4Copies(storeDir);
    const pool = new SummaryPool({ threads: 2, readsBeforeThreads: 0, start: () => undefined });
    const options = { verify: false, registry: undefined };
    const threaded = await Promise.all(copies.map((copy) => pool.summarise(copy, options)));
    expect(threaded).toEqual(await Promise.all(copies.map((copy) => summariseCopy(copy, options))));
    pool.end();
  });
});
