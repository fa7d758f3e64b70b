// Two relocations run at once over one state root (a person starting the command in two terminals, or a
// script run twice): one waits for the other, every session ends whole under the new folder's slug, and the
// journal is gone. Unheld, the two interleaved, and one removed a folder the other was filling or refused a
// session as open in a running Reasonix.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planRelocation, relocate } from '../../src/index.js';
import { withFolderLock } from '../../src/fs/os-lock.js';
import { acquireWriterLocks } from '../../src/session/reading/writer-locks.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { readJsonlSession } from '../../src/store/jsonl/read-jsonl-session.js';
import { runCliChild } from '../support/cli-child.js';
import { jsonlOf, movedProject, storeOf } from '../support/sessions/relocation-fixture.js';

describe('relocate run twice at once', () => {
  it('one waits for the other, then finishes its plan: both succeed (the library, one process)', async () => {
    const project = await movedProject();
    const { home, from, to } = project;
    const plan = await planRelocation({ from, to, home, env: {} });
    // Without a hold on the state root the two interleaved: the second found the first holding a
    // session's locks and refused it as open in a running Reasonix (RX_WRITER_OWNED).
    const reports = await Promise.all([relocate(structuredClone(plan)), relocate(structuredClone(plan))]);
    for (const report of reports) expect(report.moved.sort()).toEqual([...project.v4, project.jsonl].sort());
    await expect(readdir(join(home, 'projects'))).resolves.toEqual([to.replace(/\//g, '-')]);
    for (const id of project.v4) expect((await readSession(join(storeOf(home, to), id))).status, id).toBe('ok');
  });

  it('a plan made while another relocation moves a session waits for it, never taking its hold for a running Reasonix', async () => {
    const project = await movedProject();
    const { home, from, to } = project;
    const { stateRoot } = (await planRelocation({ from, to, home, env: {} })).stores[0]!;
    // As a relocation moving a session holds them: its state root, and the session's writer locks.
    const { plan } = await withFolderLock(stateRoot, async () => {
      const locks = await acquireWriterLocks(join(storeOf(home, from), project.v4[0]!));
      const plan = planRelocation({ from, to, home, env: {} });
      plan.catch(() => undefined);
      // A plan that does not wait settles at once (refused): it is given its time to, and no more is needed.
      await Promise.race([plan, new Promise((resolve) => setTimeout(resolve, 2000))]).catch(() => undefined);
      await locks.release();
      // Wrapped: the lock is let go here, not once the plan is made.
      return { plan };
    });
    expect((await plan).stores[0]!.sessions.map((session) => session.id)).toContain(project.v4[0]);
  });

  it('as two commands: both succeed, every session whole under the new slug, the journal gone', async () => {
    const project = await movedProject();
    const { home, from, to } = project;
    const runs = await Promise.all([
      runCliChild(['relocate', from, to, '--home', home]),
      runCliChild(['relocate', from, to, '--home', home]),
    ]);
    // The one that waited finishes the moves its plan holds, or plans after the first and finds them done.
    for (const run of runs) expect([run.code, run.stderr]).toEqual([0, '']);
    for (const run of runs) expect(run.stdout).toMatch(/moved 3 sessions|nothing left to relocate/);
    await expect(readdir(join(home, 'projects'))).resolves.toEqual([to.replace(/\//g, '-')]);
    await expect(readdir(home)).resolves.not.toContain('.rxstore-relocation.json');
    for (const id of project.v4) expect((await readSession(join(storeOf(home, to), id))).status, id).toBe('ok');
    expect((await readJsonlSession(join(jsonlOf(home, to), `${project.jsonl}.jsonl`))).status).toBe('ok');
    // Run again, the move is done.
    const again = await runCliChild(['relocate', from, to, '--home', home]);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toContain('nothing left to relocate');
  });
});
