import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runChild, runChildOk } from '../support/child.js';
import { seconds, skipped, times, verdict, type Figure } from '../support/figure.js';
import { repoRoot, rxstoreBin, scratchDir } from '../support/paths.js';
import { MiB } from '../support/sessions.js';
import { benchStateRoot, stateRootEnv } from '../support/state-root.js';
import { timeRuns, timeTogether, type Timing } from '../support/timing.js';

/** `BENCH_LS_SESSIONS` lists fewer, to try the row out; the figures are for 2,000. */
const SESSIONS = Number(process.env.BENCH_LS_SESSIONS ?? 2000);
const SESSION_BYTES = MiB;
const TARGET = 4;

/**
 * `rxstore ls` of 2,000 sessions of 1 MiB of records each, with an empty summary cache (every log
 * read whole) and with a warm one (nothing changed since), and an indexer's re-run over them (the
 * README's loop: the listing with the cache, then records since each saved cursor, none new) —
 * against the least any listing does: start Node and read and parse the 2,000 manifests. The
 * page cache is warm for all of them (it is not dropped on a shared machine).
 */
export async function lsRow(): Promise<Figure[]> {
  const help = await runChild(process.execPath, [rxstoreBin, 'ls', '--help'], { keepStdout: true });
  if (help.code !== 0)
    return [
      skipped(
        'ls',
        `rxstore ls, ${SESSIONS} sessions`,
        `rxstore ls is not built yet: \`rxstore ls --help\` exited ${help.code}`,
      ),
    ];
  const { stateRoot, logBytes } = await benchStateRoot(SESSIONS, SESSION_BYTES);
  const work = await mkdtemp(join(scratchDir, 'ls-'));
  try {
    const env = (cacheHome: string) => stateRootEnv(stateRoot, cacheHome);
    const ls = (cacheHome: string) => async () => {
      const listed = (
        await runChildOk(process.execPath, [rxstoreBin, 'ls', '--json'], { env: env(cacheHome), keepStdout: true })
      ).stdout;
      const rows = (JSON.parse(listed) as unknown[]).length;
      if (rows !== SESSIONS) throw new Error(`rxstore ls listed ${rows} sessions, not ${SESSIONS}`);
    };
    const manifests = async () => {
      const read = (
        await runChildOk(process.execPath, [join(repoRoot, 'bench', 'children', 'read-manifests.mjs'), stateRoot], {
          keepStdout: true,
        })
      ).stdout.trim();
      if (Number(read) !== SESSIONS) throw new Error(`read ${read} manifests, not ${SESSIONS}`);
    };
    const warmHome = join(work, 'warm');
    const cursors = join(work, 'cursors.json');
    const indexerCache = join(work, 'indexer-cache');
    const indexer = (expectRecords: boolean) => async () => {
      const out = (
        await runChildOk(
          process.execPath,
          [join(repoRoot, 'bench', 'children', 'indexer-run.mjs'), stateRoot, cursors, indexerCache],
          { env: env(work), keepStdout: true },
        )
      ).stdout;
      const [listed, records] = out.trim().split(' ').map(Number);
      if (listed !== SESSIONS || records! > 0 !== expectRecords)
        throw new Error(`the indexer listed ${listed} sessions and read ${records} records`);
    };

    // The listing with an empty summary cache, once (it reads 2,000 logs whole; the page cache as
    // earlier runs left it), which fills the cache the warm runs use; then the indexer's cursors made.
    await manifests();
    const cold = await timeRuns({ runs: 1 }, ls(warmHome));
    await indexer(true)();
    const timed = await timeTogether({ runs: 7, warmup: 1 }, { manifests, warm: ls(warmHome), rerun: indexer(false) });
    const reference = `${seconds(timed.manifests.median)} (start Node, read ${SESSIONS} manifests)`;
    const input = { sessions: SESSIONS, rawBytesEach: SESSION_BYTES, logBytes, referenceRuns: timed.manifests.runs };
    const against = (measure: string, ours: Timing, target: number | undefined): Figure => ({
      row: 'ls',
      measure,
      rxstore: seconds(ours.median),
      reference,
      ratio: `${times(ours.median / timed.manifests.median)} its time`,
      target: target === undefined ? '— (every log read whole)' : `≤ ${target}× its time`,
      verdict: target === undefined ? 'info' : verdict(ours.median / timed.manifests.median <= target),
      data: { ...input, rxstoreRuns: ours.runs },
    });
    return [
      against(`rxstore ls, ${SESSIONS} sessions of 1 MiB, empty summary cache`, cold, undefined),
      against(`rxstore ls, ${SESSIONS} sessions of 1 MiB, warm summary cache`, timed.warm, TARGET),
      against(
        `indexer re-run, ${SESSIONS} unchanged sessions (ls with cache + records since cursors)`,
        timed.rerun,
        TARGET,
      ),
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
