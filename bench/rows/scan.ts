import { readFile } from 'node:fs/promises';
import { readLogBatches } from '../../src/codec/read-log.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { readSession as ReadSession } from '../../src/session/verdict/read-session.js';
import type { setLogWorkers as SetLogWorkers } from '../../src/codec/log-worker/log-worker-pool.js';
import { availableParallelism } from 'node:os';
import { megabytesPerSecond, seconds, times, verdict, type Figure } from '../support/figure.js';
import { repoRoot } from '../support/paths.js';
import { benchSession } from '../support/sessions.js';
import { timeTogether, type Timing } from '../support/timing.js';
import { irreducibleScan, zstdDecompress, zstdReferenceFiles } from '../support/zstd-reference.js';

/** Five rounds, or three once they have taken 40 s. */
const PLAN = { runs: 5, minRuns: 3, budgetSeconds: 40 };
const MIN_EVENTS = 40_000;

/**
 * Verify-scan of a 100 MiB log: `readSession` from the bundle (what `rxstore inspect` does: decode, CRC,
 * digests, JSON, sequences, projection; the log decoded on a worker thread, as the library does by
 * default, and on one thread, as the CLI does) against the least work any verify-scan does, in this same process
 * on the log already in memory (decompress every frame, SHA-256 its bytes, `JSON.parse` each
 * record and inline payload: nothing checked, nothing kept). For reference: the bare codec layer,
 * `zstd -dc --no-asyncio` of the log's frames (zstd 1.5.4's writer thread makes its default run
 * swing tenfold on an idle VM), and of the same record bytes as one zstd -1 frame.
 */
export async function scanRow(): Promise<Figure[]> {
  // What users run: the bundle (a long log's worker loads its own entry from there, not the sources through tsx).
  const { readSession, setLogWorkers } = (await import(pathToFileURL(join(repoRoot, 'dist/bundle/index.js')).href)) as {
    readSession: typeof ReadSession;
    setLogWorkers: typeof SetLogWorkers;
  };
  const session = await benchSession(100);
  if (session.events < MIN_EVENTS)
    throw new Error(`the 100 MiB session has ${session.events} events, fewer than ${MIN_EVENTS}`);
  const refs = await zstdReferenceFiles(session);
  const first = await readSession(session.dir);
  if (first.status !== 'ok') throw new Error(`readSession says ${first.status}: ${first.problems[0]?.message ?? ''}`);
  const log = await readFile(session.log);

  const timed = await timeTogether(PLAN, {
    read: () => readSession(session.dir),
    codec: async () => {
      for await (const item of readLogBatches(session.log, {}, 'this')) void item;
    },
    perFrameNoAsync: () => zstdDecompress(refs.frames, ['--no-asyncio']),
    oneFrame: () => zstdDecompress(refs.oneFrame),
    least: () => irreducibleScan(log),
  });
  // As the command line reads (no log worker), against its own least work: a separate round, as
  // workers ended between two reads would start cold each time.
  setLogWorkers(0);
  const oneThread = await timeTogether(PLAN, {
    read: () => readSession(session.dir),
    least: () => irreducibleScan(log),
  });
  setLogWorkers(Math.max(0, availableParallelism() - 1));

  const rate = (timing: Timing) => `${seconds(timing.median)} (${megabytesPerSecond(session.rawBytes, timing.median)})`;
  const input = {
    rawBytes: session.rawBytes,
    events: session.events,
    frames: session.frames,
    batches: session.batches,
  };
  const figure = (measure: string, ours: Timing, reference: Timing, target: string, pass?: boolean): Figure => ({
    row: 'scan',
    measure,
    rxstore: rate(ours),
    reference: rate(reference),
    ratio: `${times(ours.median / reference.median)} its time`,
    target,
    verdict: pass === undefined ? 'info' : verdict(pass),
    data: { ...input, rxstoreRuns: ours.runs, referenceRuns: reference.runs },
  });
  return [
    figure(
      'readSession (inspect) vs least work of any verify-scan, same process',
      timed.read,
      timed.least,
      '≤ 1.5× its time',
      timed.read.median / timed.least.median <= 1.5,
    ),
    figure(
      'readSession on one thread (as the CLI reads) vs least work, a round of its own',
      oneThread.read,
      oneThread.least,
      '— (the CLI holds memory instead)',
    ),
    figure(
      'codec on one thread: readLogBatches vs least work of any verify-scan',
      timed.codec,
      timed.least,
      '— (where the time goes)',
    ),
    figure(
      'readSession (inspect) vs zstd -dc --no-asyncio, frame per record',
      timed.read,
      timed.perFrameNoAsync,
      '— (for reference)',
    ),
    figure('readSession (inspect) vs zstd -dc, one zstd -1 frame', timed.read, timed.oneFrame, '— (for reference)'),
  ];
}
