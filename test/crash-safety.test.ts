import { cp, mkdir, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../src/session/writing/create-session.js';
import { readSession } from '../src/session/reading/read-session.js';
import { rxstoreBin, runCliChild } from './support/cli-child.js';
import { crashTrials, visibleSessions } from './support/crash-trials.js';
import { copySession, endFrames, replaceFrame } from './support/faults.js';
import { repoRoot } from './support/paths.js';
import { complete, messageId } from './support/sample-session.js';
import { tempDir } from './support/temp-dir.js';
import { treeDigest } from './support/tree-digest.js';

const TRIALS = 50;
const writerChild = join(repoRoot, 'test', 'support', 'writer-child.mjs');
const PARALLEL = 4;
const report = (what: string, result: { killed: number; startupMs: number; runtimeMs: number }) =>
  console.log(`${what}: ${result.killed} of ${TRIALS} runs killed mid-way (start-up ${Math.round(result.startupMs)} ms, whole run ${Math.round(result.runtimeMs)} ms)`);

/** A session of `turns` turns with one payload over 64 KiB, written by rxstore. */
async function bigSession(storeDir: string, turns: number): Promise<string> {
  const batches = [{ operationId: 'session-create', events: [complete({ role: 'system', id: messageId(), content: 'You are a test.' })] }];
  for (let turn = 0; turn < turns; turn += 1) {
    batches.push({
      operationId: `turn-${turn}`,
      events: [
        complete({ role: 'user', id: messageId(), origin: 'user', content: `question ${turn}` }),
        complete({ role: 'assistant', id: messageId(), content: turn === 3 ? 'x'.repeat(100_000) : `answer ${turn}` }),
      ],
    });
  }
  return (await createSession({ storeDir, batches })).dir;
}

describe('a process killed with SIGKILL at a random point', () => {
  it(`during migrate jsonl-to-v4 (${TRIALS} trials): the source is unchanged, no partial session is visible, a re-run completes`, async () => {
    const template = await tempDir('rxstore-crash-template-');
    const lines = [JSON.stringify({ role: 'system', content: 'You are a test.' })];
    for (let turn = 0; turn < 300; turn += 1) {
      lines.push(JSON.stringify({ role: 'user', content: `question ${turn} ${'·'.repeat(turn % 50)}` }));
      lines.push(JSON.stringify({ role: 'assistant', content: turn === 150 ? 'x'.repeat(100_000) : `answer ${turn}` }));
    }
    await mkdir(join(template, 'sessions'));
    await writeFile(join(template, 'sessions', 'crash.jsonl'), `${lines.join('\n')}\n`);
    await writeFile(join(template, 'sessions', 'crash.jsonl.meta'), '{\n  "id": "crash"\n}\n');
    const dirs = new Map<number, string>();
    const result = await crashTrials({
      trials: TRIALS,
      parallel: PARALLEL,
      seed: 1,
      prepare: async (trial) => {
        const dir = await tempDir('rxstore-crash-');
        await cp(template, dir, { recursive: true });
        dirs.set(trial, dir);
        return [rxstoreBin, 'migrate', 'jsonl-to-v4', join(dir, 'sessions', 'crash.jsonl'), '--to', join(dir, 'sessions-v4')];
      },
      verify: async (trial, rerun) => {
        const dir = dirs.get(trial)!;
        const source = await treeDigest(join(template, 'sessions'));
        expect(await treeDigest(join(dir, 'sessions'))).toBe(source);
        for (const session of await visibleSessions(join(dir, 'sessions-v4'))) {
          expect((await readSession(session)).projection.transcript).toHaveLength(lines.length);
        }
        await rerun();
        const sessions = await visibleSessions(join(dir, 'sessions-v4'));
        expect(sessions).toHaveLength(1);
        const read = await readSession(sessions[0]!);
        expect(read.status).toBe('ok');
        expect(read.projection.transcript).toHaveLength(lines.length);
        expect(await treeDigest(join(dir, 'sessions'))).toBe(source);
      },
    });
    report('migrate', result);
  }, 900_000);

  describe('on a session', () => {
    let template: string;
    let log: Buffer;
    beforeAll(async () => {
      template = await bigSession(join(await tempDir('rxstore-crash-template-'), 'sessions-v4'), 300);
      log = await readFile(join(template, 'events.frames'));
    });

    it(`during repair (${TRIALS} trials): no byte of the log is lost, and a re-run completes the cut`, async () => {
      const dirs = new Map<number, string>();
      const tornAt = log.length - 9;
      const result = await crashTrials({
        trials: TRIALS,
        parallel: PARALLEL,
        seed: 2,
        prepare: async (trial) => {
          const dir = await copySession(template);
          await truncate(join(dir, 'events.frames'), tornAt);
          dirs.set(trial, dir);
          return [rxstoreBin, 'repair', dir];
        },
        verify: async (trial, rerun) => {
          const dir = dirs.get(trial)!;
          const evidenceOf = async () => Promise.all((await readdir(dir)).filter((name) => /^events\.torn-\d+\.tail$/.test(name)).map((name) => readFile(join(dir, name))));
          // Either the log is as it was, or it was cut and the cut bytes are kept.
          const now = await readFile(join(dir, 'events.frames'));
          if (now.length !== tornAt) {
            expect(Buffer.concat([now, (await evidenceOf())[0]!])).toEqual(log.subarray(0, tornAt));
          }
          expect(now).toEqual(log.subarray(0, now.length));
          await rerun();
          const read = await readSession(dir);
          expect(read.status).toBe('ok');
          for (const evidence of await evidenceOf()) expect(Buffer.concat([read.durableEnd === 0 ? Buffer.alloc(0) : log.subarray(0, read.durableEnd), evidence])).toEqual(log.subarray(0, tornAt));
        },
      });
      report('repair', result);
    }, 900_000);

    it(`during salvage (${TRIALS} trials): the original is unchanged, no partial session is visible, a re-run completes`, async () => {
      const stores = new Map<number, { dir: string; digest: string }>();
      const result = await crashTrials({
        trials: TRIALS,
        parallel: PARALLEL,
        seed: 3,
        prepare: async (trial) => {
          const dir = await copySession(template);
          const ends = await endFrames(dir);
          await replaceFrame(dir, ends[Math.floor(ends.length / 2)]!, Buffer.alloc(0));
          stores.set(trial, { dir, digest: await treeDigest(dir) });
          return [rxstoreBin, 'salvage', dir, '--to', join(dir, '..', '..', 'rescued')];
        },
        verify: async (trial, rerun) => {
          const { dir, digest } = stores.get(trial)!;
          const rescued = join(dir, '..', '..', 'rescued');
          expect(await treeDigest(dir)).toBe(digest);
          for (const session of await visibleSessions(rescued)) expect((await readSession(session)).status).toBe('ok');
          await rerun();
          const sessions = await visibleSessions(rescued);
          expect(sessions.length).toBeGreaterThanOrEqual(1);
          for (const session of sessions) expect((await readSession(session)).status).toBe('ok');
          expect(await treeDigest(dir)).toBe(digest);
        },
      });
      report('salvage', result);
    }, 900_000);

    it(`during the writer's append (${TRIALS} trials): the session is never damaged, only torn, and repair then a re-run complete it`, async () => {
      const dirs = new Map<number, string>();
      const committed = new Map<number, number>();
      const result = await crashTrials({
        trials: TRIALS,
        parallel: PARALLEL,
        seed: 4,
        prepare: async (trial) => {
          const dir = await copySession(template);
          dirs.set(trial, dir);
          committed.set(trial, (await readSession(dir)).batches);
          return [writerChild, 'append', dir, '10'];
        },
        verify: async (trial, rerun) => {
          const dir = dirs.get(trial)!;
          const read = await readSession(dir);
          expect(['ok', 'torn-tail']).toContain(read.status);
          expect(read.batches).toBeGreaterThanOrEqual(committed.get(trial)!);
          expect((await runCliChild(['repair', dir])).code).toBe(0);
          await rerun();
          const after = await readSession(dir);
          expect(after.status).toBe('ok');
          expect(after.batches).toBeGreaterThanOrEqual(committed.get(trial)! + 10);
        },
      });
      report('append', result);
    }, 900_000);
  });

  it(`during the writer's create (${TRIALS} trials): no partial session is visible, a re-run completes`, async () => {
    const stores = new Map<number, string>();
    const result = await crashTrials({
      trials: TRIALS,
      parallel: PARALLEL,
      seed: 5,
      prepare: async (trial) => {
        const store = join(await tempDir('rxstore-crash-create-'), 'sessions-v4');
        stores.set(trial, store);
        return [writerChild, 'create', store, '200'];
      },
      verify: async (trial, rerun) => {
        const store = stores.get(trial)!;
        const seen = await visibleSessions(store);
        for (const session of seen) expect((await readSession(session)).batches).toBe(201);
        if (seen.length === 0) await rerun();
        const sessions = await visibleSessions(store);
        expect(sessions).toHaveLength(1);
        const read = await readSession(sessions[0]!);
        expect(read.status).toBe('ok');
        expect(read.batches).toBe(201);
      },
    });
    report('create', result);
  }, 900_000);
});
