import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isCompactionRequest, startMockModel, type MockModel } from '../../test/support/reasonix/mock-model.js';
import { runReasonix } from '../../test/support/reasonix/reasonix.js';
import { benchWorkspace, scratchDir } from './paths.js';
import { timeRuns, type RunPlan, type Timing } from './timing.js';

/** Far beyond any bench session's size in tokens, so Reasonix never compacts: only resuming is timed. */
const CONTEXT_WINDOW = 1_000_000_000;
const TIMEOUT_MS = 10 * 60_000;

/**
 * Times the real Reasonix 1.38.11 running `reasonix run --resume <query> "<prompt>"` from the bench
 * workspace, against a mock model that answers at once. Reasonix changes the state root it runs
 * in (it appends a turn, migrates a transcript), so each run gets a fresh copy of `stateRoot`,
 * made outside the timed part. The mock parses each request in this process; that is part of the
 * time, as a real provider's latency would be, and is small next to Reasonix's own work.
 */
export async function timeReasonixResume(
  stateRoot: string,
  query: string,
  plan: Omit<RunPlan, 'prepare'>,
): Promise<Timing> {
  const home = join(scratchDir, 'reasonix-home');
  let mock: MockModel | undefined;
  const timing = await timeRuns(
    {
      ...plan,
      prepare: async () => {
        await rm(home, { recursive: true, force: true });
        await cp(join(stateRoot, 'projects'), join(home, 'projects'), { recursive: true });
        await mkdir(benchWorkspace, { recursive: true });
        mock = await startMockModel([{ text: 'Resumed.' }]);
      },
    },
    async () => {
      const model = mock!;
      try {
        const result = await runReasonix({
          home,
          cwd: benchWorkspace,
          args: ['run', '--resume', query, 'Carry on.'],
          mock: model,
          permissionMode: 'danger-full-access',
          contextWindow: CONTEXT_WINDOW,
          timeoutMs: TIMEOUT_MS,
        });
        if (result.code !== 0)
          throw new Error(
            `reasonix run --resume ${query} exited ${result.code}: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`,
          );
        const chats = model.chatRequests();
        if (chats.length !== 1 || chats.some(isCompactionRequest)) {
          throw new Error(
            `expected one plain model request from the resumed turn, the mock saw ${chats.length} (compaction: ${chats.some(isCompactionRequest)})`,
          );
        }
      } finally {
        await model.close();
      }
    },
  );
  await rm(home, { recursive: true, force: true });
  return timing;
}
