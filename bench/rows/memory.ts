import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { skipped, verdict, type Figure } from '../support/figure.js';
import { inspectCli } from '../support/inspect-cli.js';
import { repoRoot } from '../support/paths.js';
import { peakRssMiB, peakRssUnavailable } from '../support/peak-rss.js';
import { benchSession } from '../support/sessions.js';
import { median } from '../support/timing.js';

/** Peak RSS may differ this much between runs of the same thing and still count as the same. */
const NOISE = 1.1;
const LIMIT_MIB = 128;

const mib = (value: number) => `${value.toFixed(1)} MiB`;

const built = (path: string) => JSON.stringify(pathToFileURL(join(repoRoot, 'dist', path)).href);

/**
 * The codec layer alone, from the build, with the CLI's V8 settings (set at run time as the CLI
 * sets them: given on the command line, `--semi-space-growth-factor` does not hold the young
 * generation): every batch of the log named by argv[1], then exit.
 */
const CODEC_SCAN = `
const { tuneV8ForReading } = await import(${built('cli/v8-flags.js')});
tuneV8ForReading();
const { readLogBatches } = await import(${built('codec/read-log.js')});
for await (const item of readLogBatches(process.argv[1])) void item;
`;

/**
 * Peak RSS of `rxstore inspect --json` on logs of 25 MiB, 100 MiB and 1 GiB raw, and of the codec
 * layer alone on the two smaller ones: what inspect holds must be bounded by the largest record,
 * not by the session, so the three peaks stay together and under the limit.
 */
export async function memoryRow(): Promise<Figure[]> {
  const unavailable = peakRssUnavailable();
  if (unavailable) return [skipped('memory', 'peak RSS of rxstore inspect', unavailable)];
  const [small, large, huge] = [await benchSession(25), await benchSession(100), await benchSession(1024)];
  const smallRuns = await inspectCli(small);
  const largeRuns = await inspectCli(large);
  const hugeRuns = await inspectCli(huge);
  const bareNode: number[] = [];
  const codec: { small: number[]; large: number[] } = { small: [], large: [] };
  for (let run = 0; run < 3; run += 1) {
    bareNode.push(await peakRssMiB(process.execPath, ['-e', '0']));
    codec.small.push(await peakRssMiB(process.execPath, ['--input-type=module', '-e', CODEC_SCAN, small.log]));
    codec.large.push(await peakRssMiB(process.execPath, ['--input-type=module', '-e', CODEC_SCAN, large.log]));
  }
  const bare = median(bareNode);
  const [peakSmall, peakLarge, peakHuge] = [
    smallRuns.peakRss.median,
    largeRuns.peakRss.median,
    hugeRuns.peakRss.median,
  ];
  const [codecSmall, codecLarge] = [median(codec.small), median(codec.large)];
  return [
    {
      row: 'memory',
      measure: 'peak RSS, inspect 100 MiB log vs 25 MiB log',
      rxstore: mib(peakLarge),
      reference: mib(peakSmall),
      ratio: `${(peakLarge / peakSmall).toFixed(2)}× (+${mib(peakLarge - peakSmall)})`,
      target: `same within noise (≤ ${NOISE}×)`,
      verdict: verdict(peakLarge / peakSmall <= NOISE),
      data: {
        peak25Runs: smallRuns.peakRss.runs,
        peak100Runs: largeRuns.peakRss.runs,
        events25: small.events,
        events100: large.events,
      },
    },
    {
      row: 'memory',
      measure: 'peak RSS, inspect 100 MiB log vs bare node -e 0',
      rxstore: mib(peakLarge),
      reference: mib(bare),
      ratio: `+${mib(peakLarge - bare)}`,
      target: `< ${LIMIT_MIB} MiB`,
      verdict: verdict(peakLarge < LIMIT_MIB),
      data: { peak100Runs: largeRuns.peakRss.runs, bareNodeRuns: bareNode },
    },
    {
      row: 'memory',
      measure: 'peak RSS, inspect 1 GiB log vs bare node -e 0',
      rxstore: mib(peakHuge),
      reference: mib(bare),
      ratio: `+${mib(peakHuge - bare)}`,
      target: `≤ ${LIMIT_MIB} MiB`,
      verdict: verdict(peakHuge <= LIMIT_MIB),
      data: { peak1024Runs: hugeRuns.peakRss.runs, events1024: huge.events, bareNodeRuns: bareNode },
    },
    {
      row: 'memory',
      measure: 'peak RSS, codec only (readLogBatches), 100 MiB log vs 25 MiB log',
      rxstore: mib(codecLarge),
      reference: mib(codecSmall),
      ratio: `${(codecLarge / codecSmall).toFixed(2)}× (+${mib(codecLarge - codecSmall)})`,
      target: '— (is the streaming layer flat?)',
      verdict: 'info',
      data: { codec25Runs: codec.small, codec100Runs: codec.large },
    },
  ];
}
