import type { Worker } from 'node:worker_threads';
import { startThread } from '../../codec/log-worker/start-thread.js';
import type { IndexJob, IndexStep } from '../index-steps.js';
import { holdsRecords, type FromIndexReader, type ToIndexReader } from './index-readers-protocol.js';

/**
 * A reader thread's young generation, MiB: held small, as a summary worker's is, but twice its size: at 8 MiB
 * the thread collected often enough to fall behind the writing, and a build of 2,000 sessions peaked the same.
 */
const YOUNG_GENERATION_MIB = 16;

/** What a reader thread is used through. */
export type ReaderThread = Pick<Worker, 'on' | 'postMessage' | 'ref' | 'unref' | 'terminate'>;

/** One session asked of the thread: the steps it posted that are not taken yet. */
interface Channel {
  steps: IndexStep[];
  done: boolean;
}

/** The thread died before it read the session to its end: read it again here, from the start. */
export class ReaderThreadLost extends Error {}

/**
 * Sessions read for the search index on a thread of their own, ahead of the index writing them: the
 * update's thread spends its time in SQLite (FTS5 tokenizing every text), the reader's decoding,
 * verifying and replaying logs, and a first build of many sessions takes the longer of the two, not
 * their sum. Sessions are asked for in order (`ask`) and their steps taken in that order (`steps`);
 * the thread posts only a few steps beyond those taken (`STEPS_AHEAD`), so memory holds a few steps,
 * whatever the sessions' sizes. `end()` when done; an idle thread never holds the process.
 */
export class IndexReaders {
  private readonly channels = new Map<number, Channel>();
  private nextId = 0;
  private waiting: (() => void) | undefined;
  private dead = false;

  /** Reads on `worker`: a thread serving `serveIndexSteps`, or anything that posts and takes messages as one does. */
  constructor(private readonly worker: ReaderThread) {
    worker.unref();
    worker.on('message', (message: FromIndexReader) => {
      const channel = this.channels.get(message.id);
      if (!channel) return;
      if (message.type === 'step') channel.steps.push(message.step);
      else channel.done = true;
      this.wake();
    });
    const die = () => {
      this.dead = true;
      this.wake();
    };
    worker.on('error', die);
    worker.on('exit', die);
  }

  /** A reader thread, or undefined when none can start here. */
  static start(this: void): IndexReaders | undefined {
    const worker = startThread(import.meta.url, 'index-reader-worker', {
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB,
    });
    return worker ? new IndexReaders(worker) : undefined;
  }

  /** Asks the thread to read a session, after those asked before it; its steps come from `steps(id)`. */
  ask(job: IndexJob): number {
    const id = (this.nextId += 1);
    this.channels.set(id, { steps: [], done: false });
    this.send({ type: 'read', id, job });
    return id;
  }

  /** Whether the session asked as `id` has a step to take (or its end, or the thread's). */
  ready(id: number): boolean {
    const channel = this.channels.get(id);
    return !channel || channel.steps.length > 0 || channel.done || this.dead;
  }

  /** The steps of the session asked as `id`, in order. Throws `ReaderThreadLost` when the thread died first. */
  async *steps(id: number): AsyncGenerator<IndexStep> {
    const channel = this.channels.get(id)!;
    try {
      for (;;) {
        const step = channel.steps.shift();
        if (step) {
          if (holdsRecords(step)) this.send({ type: 'more' });
          yield step;
        } else if (channel.done) return;
        else if (this.dead) throw new ReaderThreadLost();
        else await this.next();
      }
    } finally {
      this.channels.delete(id);
    }
  }

  /** Ends the thread: what it still reads is dropped. */
  end(): void {
    this.dead = true;
    void this.worker.terminate();
  }

  private send(message: ToIndexReader): void {
    if (this.dead) return;
    try {
      this.worker.postMessage(message);
    } catch {
      // A job that cannot cross: the thread is given up, and the session read here.
      this.end();
    }
  }

  private next(): Promise<void> {
    this.worker.ref();
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    this.worker.unref();
    waiting();
  }
}
