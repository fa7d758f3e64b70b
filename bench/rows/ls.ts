import { runChild, runChildOk } from '../support/child.js';
import { dropCaches } from '../support/drop-caches.js';
import { seconds, skipped, times, type Figure } from '../support/figure.js';
import { rxstoreBin } from '../support/paths.js';
import { benchStateRoot } from '../support/state-root.js';
import { timeRuns } from '../support/timing.js';

const SESSIONS = 2000;

/**
 * `rxstore ls` over a state root of 2,000 sessions, from a cold page cache, against the least any
 * listing must do: read every session's manifest.json (find | xargs cat), cold as well. No target
 * was set; the ratio says how far from that floor listing is.
 */
export async function lsRow(): Promise<Figure[]> {
  const help = await runChild(process.execPath, [rxstoreBin, 'ls', '--help'], { keepStdout: true });
  if (help.code !== 0) {
    return [skipped('ls', `rxstore ls, ${SESSIONS} sessions`, `rxstore ls is not built yet: \`rxstore ls --help\` exited ${help.code}`)];
  }
  const { stateRoot, logBytes } = await benchStateRoot(SESSIONS);
  const cache = { warmBecause: null as string | null };
  const plan = { runs: 3, prepare: async () => void (cache.warmBecause = dropCaches()) };
  // The bench state root is the only root rxstore may read: no real home leaks into the listing.
  const env: NodeJS.ProcessEnv = { ...process.env, RXSTORE_ROOT: stateRoot, REASONIX_HOME: stateRoot, HOME: stateRoot };
  delete env.REASONIX_STATE_HOME;
  delete env.XDG_CONFIG_HOME;
  const args = [rxstoreBin, 'ls', ...(help.stdout.includes('--json') ? ['--json'] : [])];
  let listed = 0;
  const ours = await timeRuns(plan, async () => {
    listed = (await runChildOk(process.execPath, args, { env, keepStdout: true })).stdout.split('\n').length;
  });
  const floor = await timeRuns(plan, () => runChildOk('sh', ['-c', 'find projects -name manifest.json -print0 | xargs -0 cat'], { cwd: stateRoot }));
  return [
    {
      row: 'ls',
      measure: `rxstore ls, ${SESSIONS} sessions, ${cache.warmBecause ?? 'cold cache'}`,
      rxstore: seconds(ours.median),
      reference: `${seconds(floor.median)} (cat every manifest)`,
      ratio: `${times(ours.median / floor.median)} its time`,
      target: '— (none set)',
      verdict: 'info',
      data: { sessions: SESSIONS, logBytes, outputLines: listed, rxstoreRuns: ours.runs, referenceRuns: floor.runs, warmBecause: cache.warmBecause },
    },
  ];
}
