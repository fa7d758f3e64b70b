import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { reasonixAbsentMessage, reasonixBinary } from '../../test/support/reasonix/reasonix.js';
import { runChildOk } from '../support/child.js';
import { seconds, skipped, speedup, verdict, type Figure } from '../support/figure.js';
import { rxstoreBin, scratchDir } from '../support/paths.js';
import { timeReasonixResume } from '../support/reasonix-timing.js';
import { timeRuns } from '../support/timing.js';
import { benchTranscript } from '../support/transcripts.js';

/** Reasonix takes a minute or more on 50 MiB: two runs, a third only where it is quick. */
const LARGE_REASONIX = { runs: 3, minRuns: 2, budgetSeconds: 90 };
const RUNS = { runs: 3 };

/**
 * `rxstore migrate jsonl-to-v4` of a 50 MiB JSONL transcript against the real Reasonix 1.38.11
 * migrating it on `run --resume <stem>`, minus Reasonix's run on a 1 MiB transcript (its start-up
 * and the resumed turn). rxstore's figure keeps its own start-up, so the comparison favours Reasonix.
 */
export async function migrateRow(): Promise<Figure[]> {
  if (!reasonixBinary()) return [skipped('migrate', 'migrate jsonl-to-v4 vs Reasonix', reasonixAbsentMessage())];
  const [small, large] = [await benchTranscript(1), await benchTranscript(50)];
  // Each run publishes into an empty store: a target that exists already is only looked at.
  const target = join(scratchDir, 'migrate-target');
  const ours = await timeRuns({ ...RUNS, prepare: () => rm(target, { recursive: true, force: true }) }, () =>
    runChildOk(process.execPath, [rxstoreBin, 'migrate', 'jsonl-to-v4', large.file, '--to', target]),
  );
  await rm(target, { recursive: true, force: true });
  const theirsSmall = await timeReasonixResume(small.stateRoot, small.stem, RUNS);
  const theirsLarge = await timeReasonixResume(large.stateRoot, large.stem, LARGE_REASONIX);
  const theirs = theirsLarge.median - theirsSmall.median;
  return [
    {
      row: 'migrate',
      measure: `migrate jsonl-to-v4, 50 MiB (${large.messages} messages) vs Reasonix resume minus 1 MiB`,
      rxstore: seconds(ours.median),
      reference: `${seconds(theirs)} (${seconds(theirsLarge.median)} − ${seconds(theirsSmall.median)})`,
      ratio: speedup(theirs, ours.median),
      target: '≥ 2× faster',
      verdict: verdict(theirs / ours.median >= 2),
      data: {
        transcriptBytes: large.bytes,
        rxstoreRuns: ours.runs,
        reasonix50: theirsLarge.runs,
        reasonix1: theirsSmall.runs,
      },
    },
  ];
}
