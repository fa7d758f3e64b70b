import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../src/session/read-session.js';
import { visibleSessions } from './support/crash-trials.js';
import { runCliChild } from './support/cli-child.js';
import { tempDir } from './support/temp-dir.js';

describe('rxstore migrate jsonl-to-v4 --all', () => {
  it('migrates every transcript without a twin under the state root, prints progress and a summary, and fails when one fails', async () => {
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

    const run = await runCliChild(['migrate', 'jsonl-to-v4', '--all', '--state-home', stateRoot, '--home', stateRoot]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines.filter((line) => /^\[\d+\/201\] migrated /.test(line))).toHaveLength(200);
    expect(lines.filter((line) => /^\[\d+\/201\] failed .*broken\.jsonl: RX_MIGRATION_REFUSED: cannot migrate: line 2/.test(line))).toHaveLength(1);
    expect(lines.at(-1)).toBe('201 transcript(s): 200 migrated, 0 would be migrated, 0 already migrated, 1 failed');
    for (const slug of workspaces) {
      const sessions = await visibleSessions(join(stateRoot, 'projects', slug, 'sessions-v4'));
      expect(sessions).toHaveLength(100);
      expect((await readSession(sessions[0]!)).status).toBe('ok');
    }

    // Now every transcript but the broken one has its twin: only that one is left.
    const again = await runCliChild(['migrate', 'jsonl-to-v4', '--all', '--state-home', stateRoot, '--home', stateRoot, '--json']);
    expect(JSON.parse(again.stdout).map((outcome: { source: string }) => outcome.source)).toEqual([broken]);
  });
});
