import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RxError } from '../../../src/errors/index.js';
import { FRAME_BUDGET_BYTES, FRAME_HEADER_BYTES } from '../../../src/codec/frame.js';
import { readBatches } from '../../../src/codec/read-batches.js';
import { readFrames } from '../../../src/codec/read-frames.js';
import { formatInspect } from '../../../src/cli/format-inspect.js';
import { inspectReport } from '../../../src/session/verdict/inspect-report.js';
import { readSession, type SessionRead } from '../../../src/session/verdict/read-session.js';
import { personView, providerMessages } from '../../../src/session/replay/views.js';
import { storeKindOf } from '../../../src/store/roots/store-kind.js';
import type { FuzzInput } from './fuzz-inputs.js';
import type { FuzzWorkspace } from './fuzz-workspace.js';

const MiB = 1024 * 1024;

/** The bounds every input is held to. */
export const LIMITS = {
  /**
   * Both layers together, per input, in CPU time, so that a loaded machine does not fail it. A read
   * blocked without using the CPU is caught by the same bound in wall-clock time (see `settle`).
   */
  inputMs: 2000,
  /** One frame's budget, its header and one 1 MiB read chunk: no reader needs a bigger buffer. */
  allocationBytes: FRAME_BUDGET_BYTES + FRAME_HEADER_BYTES + MiB,
  /** Resident growth across one input; the largest legitimate one (200k messages) needs about a third of it. */
  inputGrowthBytes: 256 * MiB,
  /** Heap and Buffer memory left over after a whole run, once garbage is collected. */
  runGrowthBytes: 64 * MiB,
};

export type FindingKind = 'uncoded-error' | 'time' | 'allocation' | 'memory' | 'invariant' | 'expectation';

export interface Finding {
  kind: FindingKind;
  /** Where it showed: the codec (readFrames + readBatches), readSession, or the views inspect builds on a read. */
  layer: 'codec' | 'session' | 'views' | 'run';
  detail: string;
}

export interface CheckResult {
  /** What the codec made of the log: `ok`, `torn-tail` or an error code. */
  codec?: string;
  /** What readSession said: its status and first error code. */
  session?: string;
  findings: Finding[];
  /** Wall-clock and CPU time of both layers. */
  ms: number;
  cpuMs: number;
}

/** The log's name in codec errors, so that `data.file` can be checked. */
const LOG_NAME = 'events.frames';

/**
 * Reads one input with both layers and holds them to rxstore's promises: only coded errors, done
 * in time, no buffer beyond the frame budget, no runaway memory, and a read whose parts agree with
 * each other and with what the input is known to do.
 */
export async function checkInput(input: FuzzInput, workspace: FuzzWorkspace): Promise<CheckResult> {
  if (!input.codecOnly) await workspace.lay(input.entries);
  const layer = input.codecOnly ? 'codec' : 'session';
  const findings: Finding[] = [];
  const result: CheckResult = { findings, ms: 0, cpuMs: 0 };
  const rssBefore = process.memoryUsage.rss();
  const peakBefore = peakRss();
  const allocationBound = Math.min(LIMITS.allocationBytes, input.expect?.allocationBelow ?? Infinity);
  const allocations = trackAllocations(allocationBound);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let codec: LogRead | undefined;
  try {
    if (input.log) {
      codec = await readLogFromMemory(input.log, input.chunkBytes);
      result.codec =
        codec.error instanceof RxError
          ? codec.error.code
          : codec.error
            ? 'uncoded error'
            : codec.torn
              ? 'torn-tail'
              : 'ok';
      findings.push(...codecFindings(input, codec));
    }
    if (!input.codecOnly) {
      const dir = workspace.path(input.sessionPath);
      const session = await settle(readSession(dir), LIMITS.inputMs, () => workspace.releaseFifos());
      // Late alone may be a loaded machine; late until its FIFOs were opened, or never back, is a hang.
      if (session.late && (!session.outcome || session.released)) {
        const detail = session.outcome
          ? `readSession was blocked ${LIMITS.inputMs} ms and returned only once its FIFOs were opened for writing`
          : `readSession still pending after ${STUCK_MS / 1000} s of CPU time, or doing no work`;
        findings.push({ kind: 'time', layer, detail });
      }
      if (session.outcome && 'error' in session.outcome)
        findings.push({ kind: 'uncoded-error', layer, detail: describeError(session.outcome.error) });
      if (session.outcome && 'value' in session.outcome) {
        const read = session.outcome.value;
        result.session = [read.status, read.problems.find((problem) => problem.severity === 'error')?.code]
          .filter(Boolean)
          .join(' ');
        findings.push(...sessionFindings(input, read, codec), ...viewFindings(read, dir));
      }
    }
  } finally {
    allocations.stop();
  }
  result.ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuMs = (cpu.user + cpu.system) / 1000;
  if (result.cpuMs > LIMITS.inputMs) {
    // A first read pays V8's compiling of the code paths the input takes, once a process (the first input of a
    // 130,000-message history was measured at 0.7 s alone and 2.1 s of CPU in the full suite): an input slow by
    // its own nature is as slow when read again.
    const again = await cpuMsOfReading(input, workspace);
    if (again > LIMITS.inputMs)
      findings.push({
        kind: 'time',
        layer,
        detail: `took ${Math.round(result.cpuMs)} ms of CPU, and ${Math.round(again)} ms read again, over ${LIMITS.inputMs} ms`,
      });
  }
  if (allocations.largest >= allocationBound) {
    // Named by the first rxstore frame that asked for it, which is what a fix changes.
    const stack = allocations.where
      .split('\n')
      .filter((line) => line.trim().startsWith('at '))
      .map((line) => line.trim());
    const site = stack.find((line) => line.includes('/src/')) ?? stack[1] ?? 'an unknown caller';
    findings.push({
      kind: 'allocation',
      layer,
      detail: `a buffer over ${allocationBound} bytes, ${site}\n${allocations.largest} bytes\n  ${stack.slice(1, 8).join('\n  ')}`,
    });
  }
  // Growth still resident, or a new peak this input reached and gave back before we looked.
  const peak = peakRss();
  const grown = Math.max(process.memoryUsage.rss(), peak > peakBefore ? peak : 0) - rssBefore;
  if (grown > LIMITS.inputGrowthBytes)
    findings.push({
      kind: 'memory',
      layer,
      detail: `resident memory grew ${Math.round(grown / MiB)} MiB in one input`,
    });
  return result;
}

interface LogRead {
  batches: number;
  torn: boolean;
  error?: unknown;
}

async function readLogFromMemory(log: Buffer, chunkBytes: number): Promise<LogRead> {
  async function* chunks() {
    for (let at = 0; at < log.length; at += chunkBytes) yield log.subarray(at, at + chunkBytes);
  }
  const read: LogRead = { batches: 0, torn: false };
  try {
    for await (const item of readBatches(readFrames(chunks(), { file: LOG_NAME }), { file: LOG_NAME })) {
      if (item.type === 'batch') read.batches += 1;
      else read.torn = true;
    }
  } catch (error) {
    read.error = error;
  }
  return read;
}

function codecFindings(input: FuzzInput, codec: LogRead): Finding[] {
  const findings: Finding[] = [];
  const expect = input.expect ?? {};
  const error = codec.error;
  if (error !== undefined && !(error instanceof RxError))
    findings.push({ kind: 'uncoded-error', layer: 'codec', detail: describeError(error) });
  if (error instanceof RxError) {
    const { file, offset } = error.data;
    if (
      file !== LOG_NAME ||
      offset === undefined ||
      !Number.isInteger(offset) ||
      offset < 0 ||
      offset > input.log!.length
    ) {
      findings.push({
        kind: 'invariant',
        layer: 'codec',
        detail: `a codec error that does not name the log and an offset inside it\n${error.code} ${JSON.stringify(error.data)}`,
      });
    }
  }
  if (expect.committedBatches !== undefined && (error !== undefined || codec.batches !== expect.committedBatches)) {
    findings.push({
      kind: 'expectation',
      layer: 'codec',
      detail: `expected ${expect.committedBatches} committed batches and no error, got ${codec.batches}${error ? ` then ${describeError(error)}` : ''}`,
    });
  }
  if (expect.codecError) {
    const got =
      error instanceof RxError
        ? `${error.code} at ${error.data.offset}`
        : error
          ? describeError(error)
          : `no error (${codec.batches} batches)`;
    if (got !== `${expect.codecError.code} at ${expect.codecError.offset}`) {
      findings.push({
        kind: 'expectation',
        layer: 'codec',
        detail: `expected ${expect.codecError.code} at ${expect.codecError.offset}, got ${got}`,
      });
    }
  }
  return findings;
}

const STATUSES = new Set(['ok', 'torn-tail', 'damaged', 'unsupported']);

function sessionFindings(input: FuzzInput, read: SessionRead, codec: LogRead | undefined): Finding[] {
  const broken: string[] = [];
  const opens = read.status === 'ok' || read.status === 'torn-tail';
  if (!STATUSES.has(read.status))
    broken.push(`a status that is none of ${[...STATUSES].join(', ')}\n${JSON.stringify(read.status)}`);
  for (const problem of read.problems) {
    if (
      !/^RX_[A-Z_]+$/.test(problem.code) ||
      !['error', 'warning', 'note'].includes(problem.severity) ||
      typeof problem.message !== 'string'
    ) {
      broken.push(`a problem without an RX_ code, a severity or a message\n${JSON.stringify(problem)}`);
    }
  }
  if (opens === read.problems.some((problem) => problem.severity === 'error'))
    broken.push(
      `the status disagrees with the severity of the problems\n${read.status} ${JSON.stringify(read.problems)}`,
    );
  if (!countsOf(read.events.byKind, read.events.total))
    broken.push(
      `events.byKind does not count events.total\n${JSON.stringify(read.events.byKind)} total ${read.events.total}`,
    );
  if (codec && input.log) {
    const tail = JSON.stringify(read.tornTail);
    if (codec.error instanceof RxError && opens)
      broken.push(`the codec refuses the log but readSession would open it\n${codec.error.code}, ${read.status}`);
    if (!codec.error && opens && read.batches !== codec.batches)
      broken.push(`readSession and the codec count different batches\n${read.batches} and ${codec.batches}`);
    // Spec §3.4: the durable end is where the last committed batch ends; all after it is the torn tail.
    if (opens && read.durableEnd !== (read.tornTail ? read.tornTail.offset : input.log.length))
      broken.push(`durableEnd is not where the torn tail starts or the log ends\n${read.durableEnd}, tail ${tail}`);
    if (read.tornTail && read.tornTail.offset + read.tornTail.bytes !== input.log.length)
      broken.push(`the torn tail does not reach the end of the log\n${tail}, log ${input.log.length} bytes`);
  }
  const findings: Finding[] = broken.map((detail) => ({ kind: 'invariant', layer: 'session', detail }));
  const expect = input.expect ?? {};
  if (expect.sessionOpens !== undefined && expect.sessionOpens !== opens) {
    findings.push({
      kind: 'expectation',
      layer: 'session',
      detail: `expected Reasonix to ${expect.sessionOpens ? 'open' : 'refuse'} it, readSession says ${read.status} ${JSON.stringify(read.problems.map((problem) => problem.code))}`,
    });
  }
  const expectedCodes: readonly string[] | undefined =
    typeof expect.sessionProblem === 'string' ? [expect.sessionProblem] : expect.sessionProblem;
  if (expectedCodes !== undefined && !read.problems.some((problem) => expectedCodes.includes(problem.code))) {
    findings.push({
      kind: 'expectation',
      layer: 'session',
      detail: `expected problem ${expect.sessionProblem}, got ${JSON.stringify(read.problems.map((problem) => problem.code))}`,
    });
  }
  return findings;
}

/** What `rxstore inspect` builds from a read (report, text, `--json`, `--messages`) and the model view. */
function viewFindings(read: SessionRead, dir: string): Finding[] {
  try {
    const report = inspectReport(read, storeKindOf(dir));
    formatInspect(report);
    JSON.stringify(report);
    for (const message of personView(read.projection)) JSON.stringify(message);
    providerMessages(read.projection);
    if (!countsOf(report.messages.byRole, report.messages.total)) {
      return [
        {
          kind: 'invariant',
          layer: 'views',
          detail: `messages.byRole does not count messages.total\n${JSON.stringify(report.messages.byRole)} total ${report.messages.total}`,
        },
      ];
    }
    return [];
  } catch (error) {
    return [{ kind: 'uncoded-error', layer: 'views', detail: describeError(error) }];
  }
}

/** Whether `counts` holds positive whole numbers that add up to `total`. */
function countsOf(counts: Record<string, number>, total: number): boolean {
  const values: unknown[] = Object.values(counts);
  return (
    values.every((count) => Number.isInteger(count) && (count as number) > 0) &&
    values.reduce((sum: number, count) => sum + Number(count), 0) === total
  );
}

/** A read still pending after this much CPU time is running away (the bound is 2 s: six times over). */
const STUCK_MS = 12_000;
/**
 * Checks in a row, 100 ms apart on the wall clock, in which the process did no work at all while the
 * read was pending: it is blocked, not slow. A read that computes gets its turn on a loaded machine
 * within milliseconds; the wall clock only decides how often this is looked at.
 */
const STUCK_IDLE_CHECKS = 40;

interface Settled<T> {
  /** Absent when the promise was still pending at STUCK_MS. */
  outcome?: { value: T } | { error: unknown };
  late: boolean;
  /** Whether `release` let go of something it was blocked on. */
  released: boolean;
}

/**
 * Waits for `promise` up to `ms` of wall-clock time. A read that blocks on a FIFO is then let go
 * with `release`, again and again; one still pending after STUCK_MS of CPU time, or that does no work
 * over STUCK_IDLE_CHECKS checks in a row (blocked on something release cannot open), is left behind.
 * Neither depends on how busy the machine is.
 */
async function settle<T>(promise: Promise<T>, ms: number, release: () => boolean): Promise<Settled<T>> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const cpuStart = cpuMsNow();
  const first = await within(outcome, ms);
  if (first) return { outcome: first, late: false, released: false };
  let released = false;
  let last = cpuMsNow();
  for (let idle = 0; idle < STUCK_IDLE_CHECKS && last - cpuStart < STUCK_MS; ) {
    released = release() || released;
    const later = await within(outcome, 100);
    if (later) return { outcome: later, late: true, released };
    const now = cpuMsNow();
    idle = now - last < 1 ? idle + 1 : 0;
    last = now;
  }
  return { late: true, released };
}

function cpuMsNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The promise's value, or undefined once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const ALLOCATORS = ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const;

/** Watches Buffer's allocators (Node's own streams and readFile use them too) for the largest size asked. */
function trackAllocations(bound: number) {
  const buffer = Buffer as unknown as Record<(typeof ALLOCATORS)[number], (size: number, ...rest: unknown[]) => Buffer>;
  const originals = ALLOCATORS.map((name) => buffer[name]);
  const watch = { largest: 0, where: '', stop: () => ALLOCATORS.forEach((name, i) => (buffer[name] = originals[i]!)) };
  ALLOCATORS.forEach((name, i) => {
    const original = originals[i]!;
    buffer[name] = (size, ...rest) => {
      if (size > watch.largest) {
        watch.largest = size;
        if (size >= bound) watch.where = new Error(`Buffer.${name}(${size})`).stack ?? '';
      }
      return original.call(Buffer, size, ...rest);
    };
  });
  return watch;
}

/** An error as a finding names it: class, message and where it was thrown, then the stack. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `non-Error thrown: ${String(error)}`;
  const [thrownAt, ...callers] = (error.stack ?? '')
    .split('\n')
    .filter((line) => line.trim().startsWith('at '))
    .map((line) => line.trim());
  return [
    `${error.constructor.name}: ${error.message}${thrownAt ? ` ${thrownAt}` : ''}`,
    ...callers.slice(0, 5).map((line) => `  ${line}`),
  ].join('\n');
}

let gc: (() => void) | undefined;

/** A full collection: with `--expose-gc`, or by switching the flag on at run time (vitest's workers lack it). */
export function collectGarbage(): void {
  if (!gc) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gc = exposed;
    else {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
  }
  gc();
}

/** The process's highest resident size so far, in bytes. */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/** Heap and off-heap (Buffer) bytes in use: what a leak would grow. */
export function retainedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** CPU time of reading the input again with both layers, whatever they say of it. */
async function cpuMsOfReading(input: FuzzInput, workspace: FuzzWorkspace): Promise<number> {
  const before = process.cpuUsage();
  if (input.log) await readLogFromMemory(input.log, input.chunkBytes).catch(() => undefined);
  if (!input.codecOnly) await readSession(workspace.path(input.sessionPath)).catch(() => undefined);
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000;
}
