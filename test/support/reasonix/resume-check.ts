// A resume by the real Reasonix in a state root as it stands (no copy laid first), and the first batch of a
// session made and never spoken in: shared by the tests that judge what `--resume` finds.
import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { complete, messageId } from '../sessions/sample-session.js';
import { startMockModel } from './mock-model.js';
import { runReasonix, type RunResult } from './reasonix.js';

/** `reasonix run --resume <id>` from `workspace` with `home` as its root, a mock model answering once. */
export async function resumeCheck(home: string, workspace: string, id: string): Promise<RunResult> {
  const mock = await startMockModel([{ text: 'Resumed.' }]);
  try {
    return await runReasonix({ home, cwd: workspace, args: ['run', '--resume', id, 'Resume check: say ok.'], mock });
  } finally {
    await mock.close();
  }
}

/** The batch a session begins with as Reasonix writes it: its system prompt and config, no turn. */
export const createdBatch: BatchToWrite = {
  operationId: 'session-create',
  events: [
    complete({ role: 'system', id: messageId(), content: 'sys' }),
    { kind: 'session/config', payload: { modelIdentity: '', modelRef: 'mock/mock-model' } },
  ],
};
