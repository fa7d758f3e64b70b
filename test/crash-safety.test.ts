import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../src/session/read-session.js';
import { runCliChild } from './support/cli-child.js';
import { seededRandom } from './support/seeded-random.js';
import { tempDir } from './support/temp-dir.js';
import { treeDigest } from './support/tree-digest.js';

const TRIALS = 50;
const PARALLEL = 4;

/** Session directories a reader (ls, Reasonix) would see in a store: no dot-directories. */
async function visibleSessions(store: string): Promise<string[]> {
  const entries = await readdir(store, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => join(store, entry.name));
}

/** Runs `count` trials, a few at a time. */
async function trials(count: number, trial: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < count) await trial(next++);
  }));
}

describe('a process killed with SIGKILL at a random point', () => {
  const random = seededRandom(20261130);
  let template: string;
  let messages: number;
  let runtimeMs: number;
  let startupMs: number;

  beforeAll(async () => {
    template = await tempDir('rxstore-crash-template-');
    const lines = [JSON.stringify({ role: 'system', content: 'You are a test.' })];
    for (let turn = 0; turn < 1500; turn += 1) {
      lines.push(JSON.stringify({ role: 'user', content: `question ${turn} ${'·'.repeat(turn % 50)}` }));
      lines.push(JSON.stringify({ role: 'assistant', content: turn === 700 ? 'x'.repeat(100_000) : `answer ${turn}` }));
    }
    messages = lines.length;
    await mkdir(join(template, 'sessions'), { recursive: true });
    await writeFile(join(template, 'sessions', 'crash.jsonl'), `${lines.join('\n')}\n`);
    await writeFile(join(template, 'sessions', 'crash.jsonl.meta'), '{\n  "id": "crash"\n}\n');
    // Kills are spread over the part of a run after start-up, timed under the same parallel load.
    const probes = await Promise.all(Array.from({ length: PARALLEL }, async () => {
      const probe = await tempDir();
      await cp(template, probe, { recursive: true });
      return join(probe, 'sessions', 'crash.jsonl');
    }));
    const timed = async (args: (index: number) => string[]) => {
      const started = performance.now();
      const runs = await Promise.all(probes.map((_, index) => runCliChild(args(index))));
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      return performance.now() - started;
    };
    startupMs = await timed(() => ['--version']);
    runtimeMs = await timed((index) => ['migrate', 'jsonl-to-v4', probes[index]!]);
  });

  it(`during migrate jsonl-to-v4 (${TRIALS} trials): the source is unchanged, no partial session is visible, a re-run completes`, async () => {
    let killed = 0;
    await trials(TRIALS, async () => {
      const dir = await tempDir('rxstore-crash-');
      await cp(template, dir, { recursive: true });
      const source = join(dir, 'sessions');
      const store = join(dir, 'sessions-v4');
      const before = await treeDigest(source);
      const run = await runCliChild(['migrate', 'jsonl-to-v4', join(source, 'crash.jsonl')], { killAfterMs: startupMs + random.next() * (runtimeMs - startupMs) * 1.2 });
      if (run.signal === 'SIGKILL') killed += 1;
      expect(await treeDigest(source)).toBe(before);
      for (const session of await visibleSessions(store)) {
        const read = await readSession(session);
        expect(read.status).toBe('ok');
        expect(read.projection.transcript).toHaveLength(messages);
      }
      const rerun = await runCliChild(['migrate', 'jsonl-to-v4', join(source, 'crash.jsonl')]);
      expect(rerun.code, rerun.stderr).toBe(0);
      const sessions = await visibleSessions(store);
      expect(sessions).toHaveLength(1);
      expect((await readSession(sessions[0]!)).projection.transcript).toHaveLength(messages);
      expect(await treeDigest(source)).toBe(before);
    });
    console.log(`migrate: ${killed} of ${TRIALS} runs killed before they finished (start-up ${Math.round(startupMs)} ms, whole run ${Math.round(runtimeMs)} ms)`);
    expect(killed).toBeGreaterThan(TRIALS / 4);
  }, 300_000);
});
