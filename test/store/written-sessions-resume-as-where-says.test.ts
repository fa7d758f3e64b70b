// The command that resumes a session rxstore just wrote is the one `rxstore where` prints for it:
// one rule decides it (the folder to run from, the state root it needs), whichever command asks.
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { runCliChild } from '../support/cli-child.js';
import { appendBatch } from '../support/faults/faults.js';
import { buildStateRoot } from '../support/sessions/state-root.js';

const refusedCall = {
  kind: 'message/complete',
  payload: {
    message: {
      role: 'assistant',
      id: 'rx-gate-bad',
      content: '',
      tool_calls: [{ id: 'call_bad', name: 'bash', arguments: '' }],
    },
  },
};

/** What `where` prints as the command that resumes the session, from the folder it runs in. */
async function whereSays(id: string, stateRoot: string): Promise<string> {
  const run = await runCliChild(['where', id, '--state-home', stateRoot]);
  expect(run.code, run.stderr).toBe(0);
  return /^ {2}(?:resume from here|to resume): (.*)$/m.exec(run.stdout)![1]!;
}

describe('a session salvage writes is resumed by the command where prints', () => {
  it('salvage of a session Reasonix takes no new turn in prints where’s command for the new session', async () => {
    const machine = await buildStateRoot();
    const listed = JSON.parse(
      (await runCliChild(['ls', '--json', '--state-home', machine.stateRoot])).stdout,
    ) as ListedSession[];
    const dir = listed
      .find((session) => session.id === machine.ids.plainChat)!
      .copies.find((copy) => copy.store === 'sessions-v4')!.path;
    await appendBatch(dir, [refusedCall]);
    const run = await runCliChild(['salvage', dir, '--state-home', machine.stateRoot]);
    expect(run.code, run.stderr).toBe(0);
    const newId = /salvaged into \S+\/([0-9a-f]{32}):/.exec(run.stdout)![1]!;
    const resume = /^ {2}resume it with: (.*)$/m.exec(run.stdout)![1]!;
    expect(resume).toBe(await whereSays(newId, machine.stateRoot));
    expect(resume).toContain(`REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${newId}`);
    // Run again, it finds its salvage there and says the same.
    expect((await runCliChild(['salvage', dir, '--state-home', machine.stateRoot])).stdout).toContain(
      `  resume it with: ${resume}\n`,
    );
  });
});
