import { readFile } from 'node:fs/promises';
import { readBatches } from '../../src/codec/read-batches.js';
import { openLogBytes, readFrames } from '../../src/codec/read-frames.js';
import { readSession } from '../../src/session/read-session.js';
import { megabytesPerSecond, seconds, speedup, times, verdict, type Figure } from '../support/figure.js';
import { benchSession, MiB } from '../support/sessions.js';
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
      for await (const item of readBatches(readFrames(openLogBytes(session.log), { transientRaw: true }))) void item;
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
  return [
    ...against('readSession (inspect)', timed.read),
    ...against('codec: readBatches(readFrames)', timed.codec),
    {
      row: 'scan',
      measure: 'codec vs zstd -dc --no-asyncio, frame per record',
      rxstore: rate(timed.codec),
      reference: rate(timed.perFrameNoAsync),
      ratio: speedup(timed.perFrameNoAsync.median, timed.codec.median),
      target: '— (zstd without its writer thread)',
      verdict: 'info',
      data: { ...input, codecRuns: timed.codec.runs, referenceRuns: timed.perFrameNoAsync.runs },
    },
    {
      row: 'scan',
      measure: 'least work of any verify-scan vs zstd -dc, one zstd -1 frame',
      rxstore: rate(timed.irreducible),
      reference: rate(timed.oneFrame),
      ratio: `${times(timed.irreducible.median / timed.oneFrame.median)} its time`,
      target: '— (decompress, hash, JSON.parse records and payloads, from memory: can 4× be met at all?)',
      verdict: 'info',
      data: { ...input, irreducibleRuns: timed.irreducible.runs, referenceRuns: timed.oneFrame.runs },
    },
    {
      row: 'scan',
      measure: 'codec vs decompressing every frame in memory (floor)',
      rxstore: rate(timed.codec),
      reference: rate(timed.floor),
      ratio: `${times(timed.codec.median / timed.floor.median)} its time`,
      target: '— (where the time goes)',
      verdict: 'info',
      data: { ...input, rawMiB: session.rawBytes / MiB, codecRuns: timed.codec.runs, floorRuns: timed.floor.runs },
    },
  ];
}
