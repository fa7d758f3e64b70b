import { readFile } from 'node:fs/promises';
import { readLogBatches } from '../../src/codec/read-log.js';
import { readSession } from '../../src/session/reading/read-session.js';
import { megabytesPerSecond, seconds, speedup, times, verdict, type Figure } from '../support/figure.js';
import { benchSession } from '../support/sessions.js';
import { timeTogether, type Timing } from '../support/timing.js';
import { decompressEveryFrame, irreducibleScan, zstdDecompress, zstdReferenceFiles } from '../support/zstd-reference.js';

/** Five rounds, or three once they have taken 40 s. */
const PLAN = { runs: 5, minRuns: 3, budgetSeconds: 40 };
const MIN_EVENTS = 40_000;

/**
 * Verify-scan of a 100 MiB log: `readSession` (what `rxstore inspect` does: decode, CRC, digests,
 * JSON, sequences, projection) and the bare codec layer, against `zstd -dc` of the very same
 * record bytes, once as the log's own frames and once as a single frame; and, for where the time
 * goes, `zstd -dc --no-asyncio` of the frames; as the floor under any reader of one frame per
 * record, rxstore's zstd backend decompressing every frame from memory; and the least work of any
 * verify-scan (decompress, hash, parse records and payloads) against the one-frame target.
 */
export async function scanRow(): Promise<Figure[]> {
  const session = await benchSession(100);
  if (session.events < MIN_EVENTS) throw new Error(`the 100 MiB session has ${session.events} events, fewer than ${MIN_EVENTS}`);
  const refs = await zstdReferenceFiles(session);
  const first = await readSession(session.dir);
  if (first.status !== 'ok') throw new Error(`readSession says ${first.status}: ${first.problems[0]?.message ?? ''}`);
  const log = await readFile(session.log);

  const timed = await timeTogether(PLAN, {
    read: () => readSession(session.dir),
    codec: async () => {
      for await (const item of readLogBatches(session.log)) void item;
    },
    perFrame: () => zstdDecompress(refs.frames),
    // zstd 1.5.4 hands every frame to a writer thread: on an idle VM each handoff waits for a
    // halted vCPU to wake, which alone swings `zstd -dc` of small frames between 1.5 and 15 s.
    perFrameNoAsync: () => zstdDecompress(refs.frames, ['--no-asyncio']),
    oneFrame: () => zstdDecompress(refs.oneFrame),
    floor: () => decompressEveryFrame(log),
    irreducible: () => irreducibleScan(log),
  });

  const rate = (timing: Timing) => `${seconds(timing.median)} (${megabytesPerSecond(session.rawBytes, timing.median)})`;
  const input = { rawBytes: session.rawBytes, events: session.events, frames: session.frames, batches: session.batches };
  const against = (measure: string, ours: Timing): Figure[] => [
    {
      row: 'scan',
      measure: `${measure} vs zstd -dc, frame per record`,
      rxstore: rate(ours),
      reference: rate(timed.perFrame),
      ratio: speedup(timed.perFrame.median, ours.median),
      target: '≥ 10× faster',
      verdict: verdict(timed.perFrame.median / ours.median >= 10),
      data: { ...input, rxstoreRuns: ours.runs, referenceRuns: timed.perFrame.runs },
    },
    {
      row: 'scan',
      measure: `${measure} vs zstd -dc, one zstd -1 frame`,
      rxstore: rate(ours),
      reference: rate(timed.oneFrame),
      ratio: `${times(ours.median / timed.oneFrame.median)} its time`,
      target: '≤ 4× its time',
      verdict: verdict(ours.median / timed.oneFrame.median <= 4),
      data: { ...input, rxstoreRuns: ours.runs, referenceRuns: timed.oneFrame.runs },
    },
  ];
  /** A figure without a target: where the time goes, as a multiple of a reference's time. */
  const info = (measure: string, ours: Timing, reference: Timing, target: string): Figure => ({
    row: 'scan',
    measure,
    rxstore: rate(ours),
    reference: rate(reference),
    ratio: `${times(ours.median / reference.median)} its time`,
    target,
    verdict: 'info',
    data: { ...input, rxstoreRuns: ours.runs, referenceRuns: reference.runs },
  });
  return [
    ...against('readSession (inspect)', timed.read),
    ...against('codec: readLogBatches', timed.codec),
    info('codec vs zstd -dc --no-asyncio, frame per record', timed.codec, timed.perFrameNoAsync, '— (zstd without its writer thread)'),
    info(
      'least work of any verify-scan vs zstd -dc, one zstd -1 frame',
      timed.irreducible,
      timed.oneFrame,
      '— (decompress, hash, JSON.parse records and payloads, from memory: can 4× be met at all?)',
    ),
    info('codec vs decompressing every frame in memory (floor)', timed.codec, timed.floor, '— (where the time goes)'),
  ];
}
