// The command that resumes a session rxstore just wrote is the one `rxstore where` prints for it:
// one rule decides it (the folder to run from, the state root it needs), whichever command asks.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../src/store/listing/describe-conversation.js';
import { runCliChild } from './support/cli-child.js';
import { appendBatch } from './support/faults.js';
import { buildStateRoot } from './support/state-root.js';
import { tempDir } from './support/temp-dir.js';

const refusedCall = { kind: 'message/complete', payload: { message: { role: 'assistant', id: 'rx-gate-bad', content: '', tool_calls: [{ id: 'call_bad', name: 'bash', arguments: '' }] } } };

/** What `where` prints as the command that resumes the session, from the folder it runs in. */
async function whereSays(id: string, stateRoot: string): Promise<string> {
  const run = await runCliChild(['where', id, '--state-home', stateRoot]);
  expect(run.code, run.stderr).toBe(0);
  return /^ {2}(?:resume from here|to resume): (.*)$/m.exec(run.stdout)![1]!;
}

describe('a session rxstore writes is resumed by the command where prints', () => {
  it('salvage of a session Reasonix takes no new turn in prints where’s command for the new session', async () => {
    const machine = await buildStateRoot();
    const listed = JSON.parse((await runCliChild(['ls', '--json', '--state-home', machine.stateRoot])).stdout) as ListedSession[];
    const dir = listed.find((session) => session.id === machine.ids.plainChat)!.copies.find((copy) => copy.store === 'sessions-v4')!.path;
    await appendBatch(dir, [refusedCall]);
    const run = await runCliChild(['salvage', dir, '--state-home', machine.stateRoot]);
    expect(run.code, run.stderr).toBe(0);
    const newId = /salvaged into \S+\/([0-9a-f]{32}):/.exec(run.stdout)![1]!;
    const resume = /^ {2}resume it with: (.*)$/m.exec(run.stdout)![1]!;
    expect(resume).toBe(await whereSays(newId, machine.stateRoot));
    expect(resume).toContain(`REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${newId}`);
    // Run again, it finds its salvage there and says the same.
    expect((await runCliChild(['salvage', dir, '--state-home', machine.stateRoot])).stdout).toContain(`  resume it with: ${resume}\n`);
  });

  it('migrate prints where’s command for the session it wrote', async () => {
    const machine = await buildStateRoot();
    const workspace = await tempDir('rxstore-ws-');
    const file = join(await tempDir('rxstore-jsonl-'), 'notes.jsonl');
    await writeFile(file, `${JSON.stringify({ role: 'user', content: 'hello' })}\n${JSON.stringify({ role: 'assistant', content: 'hi' })}\n`);
    const run = await runCliChild(['migrate', 'jsonl-to-v4', file, '--state-home', machine.stateRoot, '--cwd', workspace]);
    expect(run.code, run.stderr).toBe(0);
    const [, id, resume] = /^migrated \S+: (\S+) -> \S+; resume: (.*)$/m.exec(run.stdout)!;
    expect(resume).toBe(await whereSays(id!, machine.stateRoot));
    expect(resume).toBe(`cd ${workspace} && REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${id}`);
  });
});
