// A transcript of a great many short messages migrates in a heap far smaller than its messages held one
// object each: migrate once held, per message, its id and its transcript-gate facts (the first read), every
// committed batch's events (the write), and a summary of each message (the `where` that follows), and a
// 100,000-message transcript of 3.7 MB ended in a V8 crash under this heap. `ls` of the result holds its
// memory as well: a listing keeps an index of the messages, not each one's summary.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';

const TURNS = 50_000;

describe('a transcript of 100,000 short messages', () => {
  it('migrates in a 32 MiB heap, both are listed in 48 MiB, and its records read in 40 MiB', async () => {
    const stateRoot = await tempDir('rxstore-many-messages-');
    const sessions = join(stateRoot, 'projects', '-tmp-many', 'sessions');
    await mkdir(sessions, { recursive: true });
    const workspace = await tempDir('rxstore-many-messages-ws-');
    const lines: string[] = [];
    for (let turn = 0; turn < TURNS; turn += 1)
      lines.push(
        JSON.stringify({ role: 'user', content: `q${turn}` }),
        JSON.stringify({ role: 'assistant', content: `a${turn}` }),
      );
    const transcript = join(sessions, 'many.jsonl');
    await writeFile(transcript, `${lines.join('\n')}\n`);
    const env = {
      ...process.env,
      HOME: stateRoot,
      REASONIX_HOME: stateRoot,
      RXSTORE_ROOT: stateRoot,
      XDG_CACHE_HOME: await tempDir('rxstore-cache-'),
      NODE_OPTIONS: '--max-old-space-size=32',
    };
    const migrated = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--cwd', workspace, '--json'], { env });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('"migrated"');
    // A listing reads the transcript and the session at once: a heap for two.
    const listed = await runCliChild(['ls', '--no-cache', '--json'], {
      env: { ...env, NODE_OPTIONS: '--max-old-space-size=48' },
    });
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as { format?: string; messages?: number }[];
    expect(rows.map((row) => row.messages)).toContain(2 * TURNS);
    // Its records, read in two passes: what the second pass needs of each message is a few numbers, not objects.
    const session = (rows as { path: string; store: string }[]).find((row) => row.store === 'sessions-v4')!;
    const records = await runCliChild(['cat', '--records', session.path], {
      env: { ...env, NODE_OPTIONS: '--max-old-space-size=40' },
    });
    expect(records.code, records.stderr).toBe(0);
    expect(records.stdout.trim().split('\n')).toHaveLength(2 * TURNS);
  }, 120_000);
});
