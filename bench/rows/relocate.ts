import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runChild, runChildOk } from '../support/child.js';
import { seconds, skipped, times, type Figure } from '../support/figure.js';
import { rxstoreBin, scratchDir } from '../support/paths.js';
import { MiB } from '../support/sessions.js';
import { benchStateRoot } from '../support/state-root.js';

/** `BENCH_LS_SESSIONS` tries the row on fewer sessions, as the ls row does; the figures are for 2,000. */
const SESSIONS = Number(process.env.BENCH_LS_SESSIONS ?? 2000);
/** The bench state root's workspaces (bench/support/state-root.ts). */
const WORKSPACES = 8;
const TARGET = 1;

/**
 * `rxstore relocate` of every workspace of the ls row's state root (2,000 sessions of 1 MiB, eight
 * workspaces), one run a workspace, against a cold `rxstore ls` of the same state root (an empty
 * summary cache: every log read whole) in the same run. The sessions are then relocated back,
 * untimed, so the state root is as the ls row builds it.
 */
export async function relocateRow(): Promise<Figure[]> {
  const help = await runChild(process.execPath, [rxstoreBin, 'relocate', '--help'], { keepStdout: true });
  if (help.code !== 0)
    return [
      skipped(
        'relocate',
        `rxstore relocate, ${SESSIONS} sessions`,
        `rxstore relocate is not built yet: \`rxstore relocate --help\` exited ${help.code}`,
      ),
    ];
  const { stateRoot } = await benchStateRoot(SESSIONS, MiB);
  const work = await mkdtemp(join(scratchDir, 'relocate-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: stateRoot, XDG_CACHE_HOME: join(work, 'cache') };
  delete env.REASONIX_STATE_HOME;
  delete env.RXSTORE_ROOT;
  const folders = Array.from(
    { length: WORKSPACES },
    (_, index) => [`/tmp/rxstore-bench-ls/ws-${index}`, join(work, 'moved', `ws-${index}`)] as const,
  );
  const relocateAll = async (back: boolean) => {
    for (const [old, moved] of folders) {
      const [from, to] = back ? [moved, old] : [old, moved];
      await mkdir(to, { recursive: true });
      // --force: a bench machine may still have the original folders, and the row measures the move, not the refusal.
      await runChildOk(process.execPath, [rxstoreBin, 'relocate', from, to, '--home', stateRoot, '--force'], { env });
      if (back) await rm(from, { recursive: true, force: true });
    }
  };
  try {
    const coldStarted = performance.now();
    const listed = (
      await runChildOk(process.execPath, [rxstoreBin, 'ls', '--json', '--home', stateRoot], { env, keepStdout: true })
    ).stdout;
    const cold = (performance.now() - coldStarted) / 1000;
    if ((JSON.parse(listed) as unknown[]).length !== SESSIONS)
      throw new Error(`rxstore ls did not list ${SESSIONS} sessions`);
    const started = performance.now();
    await relocateAll(false);
    const moving = (performance.now() - started) / 1000;
    await relocateAll(true);
    return [
      {
        row: 'relocate',
        measure: `rxstore relocate, ${SESSIONS} sessions of 1 MiB in ${WORKSPACES} workspaces (one run each)`,
        rxstore: seconds(moving),
        reference: `${seconds(cold)} (cold rxstore ls of them, empty summary cache)`,
        ratio: `${times(moving / cold)} its time`,
        target: `≤ ${TARGET}× its time`,
        // One run each on a shared machine: indicative, never a verdict.
        verdict: 'info',
        data: { sessions: SESSIONS, workspaces: WORKSPACES, relocateSeconds: moving, coldLsSeconds: cold },
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
