import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../../codec/log-worker/start-thread.js';
import { summariseCopy, type CopyRead, type SummariseOptions } from '../summarise-copy.js';
import type { SessionCopy } from '../session-copy.js';
import type { FromSummaryWorker, ToSummaryWorker } from './summary-pool-protocol.js';

/**
 * Copies summarised on the listing's own thread before the pool starts a thread: a listing that reads
 * only a few logs (most are answered by the summary cache) never pays a thread's start and heap.
 */
export const READS_BEFORE_THREADS = 8;

/**
 * A summary worker's young generation, MiB: held small whatever V8's flags were as the thread started
 * (a thread's start sets them back for a moment), since a listing holds one heap per core; with it a
 * cold listing of 2,000 sessions of 1 MiB peaked at 188 MiB.
 */
const YOUNG_GENERATION_MIB = 8;

/** One summary worker and the jobs it has been asked for, each answered in turn. */
interface Thread {
  worker: Worker;
  waiting: Map<number, (read: CopyRead | undefined) => void>;
  dead: boolean;
}

/** How a `SummaryPool` runs: its threads, how many reads it leaves to the caller's thread, how a thread starts. */
export interface SummaryPoolOptions {
  /**
   * Worker threads at most, besides the caller's, which reads its share too; 0 summarises every copy
   * on the caller's thread. Default: one fewer than the machine's cores (`defaultSummaryThreads`).
   */
  threads?: number;
  /** Copies summarised on the caller's thread before a thread starts (`READS_BEFORE_THREADS`). */
  readsBeforeThreads?: number;
  /** Starts one thread (a test starts one that dies); undefined when none can start. */
  start?: () => Worker | undefined;
}

/**
 * Worker threads a pool starts by default: one fewer than the cores, the caller's thread being the
 * other reader. A thread of its own costs a core's worth of start: loading rxstore (about a third of
 * a second) and compiling its hot code again, which for 200 cold sessions of 1 MiB was a third of
 * the CPU a listing spent besides the reading itself.
 */
export function defaultSummaryThreads(): number {
  return Math.max(0, availableParallelism() - 1);
}

/**
 * Sessions read cold, spread over the cores: each v4 copy is summarised whole (`summariseCopy`: its
 * log decoded, verified and replayed) on the caller's thread or one of a few worker threads, each
 * copy to the reader with the fewest waiting, while the caller's thread also keeps the summary cache
 * and puts the rows in order. Each reader reads one copy at a time, so memory holds a log per core.
 * A thread that cannot start, or dies, or a copy whose summary threw there, and the copy is
 * summarised again on the caller's thread: the answer, or the error, is the one a listing without
 * threads gives. Call `end()` when the listing is done; an idle thread never holds the process.
 */
export class SummaryPool {
  private readonly threads: Thread[] = [];
  private readonly most: number;
  private readonly readsBeforeThreads: number;
  private readonly start: () => Worker | undefined;
  private asked = 0;
  private nextJob = 0;
  /** Copies waiting for, or being read on, the caller's thread, one after another. */
  private hereWaiting = 0;
  private hereQueue: Promise<unknown> = Promise.resolve();
  private ended = false;
  /** A thread would not start: none is tried again. */
  private cannotStart = false;

  constructor(options: SummaryPoolOptions = {}) {
    this.most = options.threads ?? defaultSummaryThreads();
    this.readsBeforeThreads = options.readsBeforeThreads ?? READS_BEFORE_THREADS;
    this.start =
      options.start ??
      (() => startThread(import.meta.url, 'summary-worker', { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB }));
  }

  /** What `summariseCopy` says of the copy, read on the reader (this thread or a worker) with the fewest waiting. */
  async summarise(copy: SessionCopy, options: SummariseOptions): Promise<CopyRead> {
    this.asked += 1;
    // A transcript is read here: its lines are few beside a log's frames, and its copy holds its meta's error.
    if (copy.format !== 'v4') return summariseCopy(copy, options);
    const thread = this.asked > this.readsBeforeThreads ? this.leastBusy() : undefined;
    const read =
      thread && thread.waiting.size <= this.hereWaiting
        ? await this.ask(thread, { type: 'summarise', job: (this.nextJob += 1), copy, options })
        : await this.readHere(copy, options);
    return read ?? summariseCopy(copy, options);
  }

  /** The copy summarised on the caller's thread once the copies before it there are: one log in memory at a time, as on a worker. */
  private readHere(copy: SessionCopy, options: SummariseOptions): Promise<CopyRead> {
    this.hereWaiting += 1;
    const read = this.hereQueue.then(() => summariseCopy(copy, options));
    const done = () => {
      this.hereWaiting -= 1;
    };
    this.hereQueue = read.then(done, done);
    return read;
  }

  /** Ends every thread; a summary still asked of one is read on the caller's thread. */
  end(): void {
    this.ended = true;
    for (const thread of this.threads) this.die(thread);
    this.threads.length = 0;
  }

  /** Threads that live now (started and not dead). */
  get liveThreads(): number {
    return this.threads.filter((thread) => !thread.dead).length;
  }

  /** The live thread with the fewest jobs, a new one while there is room and every thread has work. */
  private leastBusy(): Thread | undefined {
    const live = this.threads.filter((thread) => !thread.dead);
    const idle = live.find((thread) => thread.waiting.size === 0);
    if (idle || this.ended) return idle;
    // A thread that died is not replaced: what killed it (a heap too small, a fault) would kill the next.
    if (!this.cannotStart && this.threads.length < this.most) {
      const started = this.startThread();
      if (started) return started;
    }
    return live.sort((a, b) => a.waiting.size - b.waiting.size)[0];
  }

  private startThread(): Thread | undefined {
    const worker = this.start();
    if (!worker) {
      this.cannotStart = true;
      return undefined;
    }
    const thread: Thread = { worker, waiting: new Map(), dead: false };
    worker.unref();
    worker.on('message', (message: FromSummaryWorker) => {
      const resolve = thread.waiting.get(message.job);
      thread.waiting.delete(message.job);
      if (thread.waiting.size === 0) worker.unref();
      resolve?.(message.type === 'read' ? message.read : undefined);
    });
    worker.on('error', () => this.die(thread));
    worker.on('exit', () => this.die(thread));
    this.threads.push(thread);
    return thread;
  }

  /** The copy's read from the thread; undefined when the thread could not give it. */
  private ask(thread: Thread, message: ToSummaryWorker): Promise<CopyRead | undefined> {
    return new Promise((resolve) => {
      try {
        thread.worker.postMessage(message);
      } catch {
        // A copy that cannot cross to the thread is read here.
        resolve(undefined);
        return;
      }
      thread.waiting.set(message.job, resolve);
      thread.worker.ref();
    });
  }

  /** A thread gone: what it was asked is read on the caller's thread. */
  private die(thread: Thread): void {
    if (thread.dead) return;
    thread.dead = true;
    void thread.worker.terminate();
    for (const resolve of thread.waiting.values()) resolve(undefined);
    thread.waiting.clear();
  }
}
