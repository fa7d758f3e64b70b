import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { visibleSessions } from '../support/faults/crash-trials.js';
import { runCliChild } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';

describe('rxstore migrate jsonl-to-v4 --all', () => {
  it('migrates every transcript without a twin under the state root where Reasonix would, a line each and a summary, and fails when one fails', async () => {
    const stateRoot = await tempDir('rxstore-all-');
    const workspaces = ['-home-me-alpha', '-home-me-beta'];
    for (const [w, slug] of workspaces.entries()) {
      const dir = join(stateRoot, 'projects', slug, 'sessions');
      await mkdir(dir, { recursive: true });
      for (let index = 0; index < 100; index += 1) {
        const lines = [
          { role: 'system', content: 'You are a test.' },
          { role: 'user', content: `question ${w}-${index}` },
          { role: 'assistant', content: `answer ${w}-${index}` },
        ];
        await writeFile(join(dir, `t-${index}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
        // Sidecars of a transcript are never transcripts themselves.
        if (index % 10 === 0) await writeFile(join(dir, `t-${index}.events.jsonl`), '{"type":"user.message"}\n');
      }
    }
    const broken = join(stateRoot, 'projects', workspaces[0]!, 'sessions', 'broken.jsonl');
    await writeFile(broken, '{"role":"user","content":"fine"}\n{not json\n');
    // A transcript of the global folder goes to the store of the folder Reasonix runs from.
    const global = join(stateRoot, 'sessions', 'global-notes.jsonl');
    await mkdir(join(stateRoot, 'sessions'));
    await writeFile(global, '{"role":"system","content":"You are a test."}\n{"role":"user","content":"global"}\n');
    const cwd = join(stateRoot, 'some ws');
    await mkdir(cwd);

    const run = await runCliChild([
      'migrate',
      'jsonl-to-v4',
      '--all',
      '--state-home',
      stateRoot,
      '--home',
      stateRoot,
      '--cwd',
      cwd,
    ]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    const migrated = lines.filter((line) => /^\[\d+\/202\] migrated /.test(line));
    expect(migrated).toHaveLength(201);
    expect(lines.filter((line) => line.includes(`] failed ${broken}:2: not JSON`))).toHaveLength(1);
    expect(lines.at(-1)).toBe('202 transcripts: 201 migrated, 0 would be migrated, 0 already migrated, 1 failed');
    for (const slug of workspaces) {
      const sessions = await visibleSessions(join(stateRoot, 'projects', slug, 'sessions-v4'));
      expect(sessions).toHaveLength(100);
      expect((await readSession(sessions[0]!)).status).toBe('ok');
    }
    const cwdStore = join(stateRoot, 'projects', workspaceSlug(cwd, 'linux'), 'sessions-v4');
    const [globalTwin] = await visibleSessions(cwdStore);
    expect(globalTwin).toBeDefined();
    expect(migrated.find((line) => line.includes(global))).toMatch(
      new RegExp(
        `: ([0-9a-f]{24}) -> ${cwdStore}/\\1; resume: cd '${cwd}' && REASONIX_HOME=${stateRoot} REASONIX_STATE_HOME=${stateRoot} reasonix --resume \\1$`,
      ),
    );

    // Now every transcript but the broken one has its twin: only that one is left.
    const again = await runCliChild([
      'migrate',
      'jsonl-to-v4',
      '--all',
      '--state-home',
      stateRoot,
      '--home',
      stateRoot,
      '--cwd',
      cwd,
      '--json',
    ]);
    expect(JSON.parse(again.stdout).map((outcome: { source: string }) => outcome.source)).toEqual([broken]);
  });
});
