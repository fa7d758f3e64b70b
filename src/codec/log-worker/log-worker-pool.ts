import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startThread } from './start-thread.js';
import type { FromLogWorker, ToLogWorker } from './log-worker-protocol.js';
import type { ReadLogOptions } from '../read-log-options.js';
import { InvalidInputError } from '../../errors/index.js';

/**
 * One log worker thread, kept between reads: a thread started for each read would decode with code
 * not yet optimised, and a long log is decoded half again as slowly that way. It keeps the process
 * alive only while a reader waits for its next message: an idle worker, or one whose reader was
 * dropped half way, never holds the process open.
 */
export class LogWorker {
  // Stryker disable next-line ArrayDeclaration: the queue is emptied at the start of every read, before anything takes from it
  private readonly queue: FromLogWorker[] = [];
  private waiting: ((message: FromLogWorker) => void) | undefined;
  private idleEnd: NodeJS.Timeout | undefined;
  /** The thread has exited or failed: it reads nothing more. */
  dead = false;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (message: FromLogWorker) => this.deliver(message));
    const die = () => {
      this.dead = true;
      this.deliver({ type: 'failed' });
    };
    worker.on('error', die);
    worker.on('exit', die);
  }

  /** A new worker (`startThread`), or undefined when none can start here. */
  static start(): LogWorker | undefined {
    const thread = startThread(import.meta.url, 'log-worker');
    return thread ? new LogWorker(thread) : undefined;
  }

  /** Starts reading a log; its messages come from `next()` until one that ends the read. */
  read(logPath: string, options: ReadLogOptions): void {
    this.queue.length = 0;
    this.send({ type: 'read', logPath, options });
  }

  send(message: ToLogWorker): void {
    // Stryker disable next-line ConditionalExpression: a message posted to a thread that has ended goes nowhere either way
    if (!this.dead) this.worker.postMessage(message);
  }

  next(): Promise<FromLogWorker> {
    const message = this.queue.shift();
    if (message) return Promise.resolve(message);
    if (this.dead) return Promise.resolve({ type: 'failed' });
    this.worker.ref();
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Stops the read under way, if any, and waits for its end: no message of it is left for the next read. */
  async finish(ended: boolean): Promise<void> {
    if (!ended) {
      // Stryker disable next-line ObjectLiteral,StringLiteral: the worker takes any message but read and more as stop
      this.send({ type: 'stop' });
      for (let message = await this.next(); message.type === 'items'; message = await this.next());
    }
  }

  /** Ends the thread (an idle one: no read is under way). */
  end(): void {
    clearTimeout(this.idleEnd);
    this.dead = true;
    void this.worker.terminate();
  }

  /** Ends the thread once it has had no read for `ms`, then calls `ended`. */
  endWhenIdleFor(ms: number, ended: () => void): void {
    this.idleEnd = setTimeout(() => {
      this.end();
      ended();
    }, ms).unref();
  }

  /** Keeps the thread for a read: it no longer ends by itself. */
  keep(): void {
    clearTimeout(this.idleEnd);
  }

  private deliver(message: FromLogWorker): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) {
      this.queue.push(message);
      return;
    }
    this.worker.unref();
    waiting(message);
  }
}

/** Log workers at most: by default one core is left to the threads that use what they decode. */
let mostWorkers = Math.max(0, availableParallelism() - 1);
const idle: LogWorker[] = [];
let started = 0;

/** An idle worker ends after this long without a read: its heap is not kept for reads that may never come. */
export const IDLE_WORKER_MS = 30_000;

/** Log worker threads alive now, reading or idle. */
export function liveLogWorkers(): number {
  return started;
}

/**
 * How many log worker threads may decode long logs (16 MiB or more) at once; 0 reads every log on the
 * caller's thread. By default one fewer than the machine's cores. A worker makes a long read about a
 * third faster on two cores, for a second heap: with the reading V8 flags (`tuneV8ForReading`, which a
 * thread's start no longer undoes) some 30 MiB more at the peak of a 100 MiB log and 55 MiB of a 1 GiB
 * one. The command line sets 0, to hold its memory near what is live. Idle workers beyond the new count
 * end; any idle worker ends after `IDLE_WORKER_MS` without a read.
 */
export function setLogWorkers(count: number): void {
  if (!Number.isInteger(count) || count < 0) {
    throw new InvalidInputError(
      `log workers: expected a whole number of 0 or more, got ${typeof count === 'number' ? count : `a value of type ${typeof count}`}`,
    );
  }
  mostWorkers = count;
  while (idle.length > 0 && started > count) {
    idle.pop()!.end();
    started -= 1;
  }
}

/**
 * A log worker for one read (an idle one, or a new one) while fewer than `setLogWorkers` allows are reading (any
 * number when `always`), undefined when none is free. Give it back with `returnLogWorker`.
 */
export function takeLogWorker(always = false): LogWorker | undefined {
  if (started - idle.length >= mostWorkers && !always) return undefined;
  for (let worker = idle.pop(); worker; worker = idle.pop()) {
    if (!worker.dead) {
      worker.keep();
      return worker;
    }
    started -= 1;
  }
  const worker = LogWorker.start();
  if (worker) started += 1;
  return worker;
}

/** A worker whose read has ended, kept for the next read while it lives, until it has been idle for `IDLE_WORKER_MS`. */
export function returnLogWorker(worker: LogWorker): void {
  // One more than `setLogWorkers` now allows (it was lowered during the read) ends here.
  if (!worker.dead && started > mostWorkers) worker.end();
  if (worker.dead) {
    started -= 1;
    return;
  }
  idle.push(worker);
  worker.endWhenIdleFor(IDLE_WORKER_MS, () => {
    idle.splice(idle.indexOf(worker), 1);
    started -= 1;
  });
}
