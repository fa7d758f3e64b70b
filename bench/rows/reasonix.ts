import { reasonixAbsentMessage, reasonixBinary } from '../../test/support/reasonix/reasonix.js';
import { seconds, skipped, speedup, verdict, type Figure } from '../support/figure.js';
import { inspectCli } from '../support/inspect-cli.js';
import { timeReasonixResume } from '../support/reasonix-timing.js';
import { benchSession } from '../support/sessions.js';

/** A 100 MiB resume takes Reasonix minutes: two runs, a third only where it is quick. */
const LARGE = { runs: 3, minRuns: 2, budgetSeconds: 90 };
const SMALL = { runs: 3 };

/**
 * `rxstore inspect` of the 100 MiB session against the real Reasonix 1.38.11 resuming it (one
 * turn, mock model answering at once, no compaction), each minus the same for a 1 MiB session,
 * which takes away both programs' fixed start-up cost and leaves what the extra 99 MiB cost.
 */
export async function reasonixRow(): Promise<Figure[]> {
  if (!reasonixBinary()) return [skipped('reasonix', 'inspect vs Reasonix resume', reasonixAbsentMessage())];
  const [small, large] = [await benchSession(1), await benchSession(100)];
  const oursSmall = (await inspectCli(small)).time;
  const oursLarge = (await inspectCli(large)).time;
  const theirsSmall = await timeReasonixResume(small.stateRoot, small.id, SMALL);
  const theirsLarge = await timeReasonixResume(large.stateRoot, large.id, LARGE);
  const ours = oursLarge.median - oursSmall.median;
  const theirs = theirsLarge.median - theirsSmall.median;
  return [
    {
      row: 'reasonix',
      measure: 'inspect vs Reasonix resume, 100 MiB minus 1 MiB',
      rxstore: `${seconds(ours)} (${seconds(oursLarge.median)} − ${seconds(oursSmall.median)})`,
      reference: `${seconds(theirs)} (${seconds(theirsLarge.median)} − ${seconds(theirsSmall.median)})`,
      ratio: speedup(theirs, ours),
      target: '≥ 20× faster',
      verdict: verdict(theirs / ours >= 20),
      data: {
        rxstore100: oursLarge.runs,
        rxstore1: oursSmall.runs,
        reasonix100: theirsLarge.runs,
        reasonix1: theirsSmall.runs,
      },
    },
  ];
}
