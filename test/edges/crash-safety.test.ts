import { cp, mkdir, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportedText } from '../../src/migrate/export-session.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { rxstoreBin, runCliChild, runNodeChild } from '../support/cli-child.js';
import { crashTrials, visibleSessions } from '../support/faults/crash-trials.js';
import {
  forEachHit,
  killAtFailPoint,
  traceFailPoints,
  visiblePaths,
  type FailPointHit,
} from '../support/faults/fail-points.js';
import { copySession, endFrames, replaceFrame } from '../support/faults/faults.js';
import { repoRoot } from '../support/paths.js';
import {
  reasonixAbsentMessage,
  reasonixBinary,
  resumeWithReasonix,
  runReasonix,
} from '../support/reasonix/reasonix.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';
import { treeDigest } from '../support/tree-digest.js';

const TRIALS = 5;
/**
 * Batches the writer's append test appends, one call each: a small one, then one with a payload for the
 * content store. A third passes the first's lines again with more before it, which the second already does.
 */
const APPENDED = 2;
const writerChild = join(repoRoot, 'test', 'support', 'children', 'writer-child.mjs');
const PARALLEL = 4;
const RANDOM_PARALLEL = 2;
const report = (what: string, result: { killed: number; startupMs: number; runtimeMs: number }) =>
  console.log(
    `${what}: ${result.killed} of ${TRIALS} runs killed mid-way (start-up ${Math.round(result.startupMs)} ms, whole run ${Math.round(result.runtimeMs)} ms)`,
  );

/** A session of `turns` turns with one payload over 64 KiB, written by rxstore. */
async function bigSession(storeDir: string, turns: number): Promise<string> {
  const batches = [
    {
      operationId: 'session-create',
      events: [complete({ role: 'system', id: messageId(), content: 'You are a test.' })],
    },
  ];
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

/** A `sessions` directory holding one JSONL transcript of `turns` turns (one answer over 64 KiB) and its meta. */
async function jsonlTemplate(turns: number): Promise<{ dir: string; lines: number }> {
  const dir = await tempDir('rxstore-crash-template-');
  const lines = [JSON.stringify({ role: 'system', content: 'You are a test.' })];
  for (let turn = 0; turn < turns; turn += 1) {
    lines.push(JSON.stringify({ role: 'user', content: `question ${turn} ${'·'.repeat(turn % 50)}` }));
    lines.push(
      JSON.stringify({
        role: 'assistant',
        content: turn === Math.floor(turns / 2) ? 'x'.repeat(100_000) : `answer ${turn}`,
      }),
    );
  }
  await mkdir(join(dir, 'sessions'));
  // The store migrate --to adds to: one that is there.
  await mkdir(join(dir, 'sessions-v4'));
  await writeFile(join(dir, 'sessions', 'crash.jsonl'), `${lines.join('\n')}\n`);
  await writeFile(join(dir, 'sessions', 'crash.jsonl.meta'), '{\n  "id": "crash"\n}\n');
  return { dir, lines: lines.length };
}

/** What a reader of a session gets: its transcript as export writes it (message ids included); the session must read whole. */
async function transcriptOf(session: string): Promise<string> {
  const read = await readSession(session);
  expect(read.status).toBe('ok');
  return exportedText(read, { format: 'jsonl', id: 'crash' }).document;
}

/** Roles and contents of a session's messages: what the writer child writes, whose ids are new on each run. */
async function contentsOf(session: string): Promise<string[]> {
  const read = await readSession(session);
  expect(read.status).toBe('ok');
  return read.projection.transcript.map(({ message }) => `${message.role}: ${String(message.content)}`);
}

/** Every named step a writer passes, and each reached by its clean run. */
function expectSteps(hits: FailPointHit[], steps: string[]): void {
  expect(hits.length).toBeGreaterThan(0);
  expect([...new Set(hits.map((hit) => hit.name))]).toEqual(expect.arrayContaining(steps));
}

/** A killed run shows a reader nothing but what was there before or what a whole run leaves: no half-made name. */
function expectNothingHalfMade(after: string[], before: string[], clean: string[]): void {
  const known = new Set([...before, ...clean]);
  expect(after.filter((path) => !known.has(path))).toEqual([]);
}

/**
 * The lease's lock file beside the transcript (`crash.jsonl.lease.lock`): a migration killed while it held the
 * lease leaves it, as a killed Reasonix leaves its own; the next migration takes the lease and removes it. Empty,
 * and the only thing of the transcripts' folder a kill may leave changed.
 */
const LEASE = 'crash.jsonl.lease.lock';

async function expectSourceAsItWas(sessions: string, source: string): Promise<void> {
  const lease = await readFile(join(sessions, LEASE)).catch(() => undefined);
  if (lease !== undefined) expect(lease.length).toBe(0);
  expect(await treeDigest(sessions, (path) => path === LEASE)).toBe(source);
}

/** The real Reasonix resumes a session, and the model is sent its history. */
async function expectReasonixResumes(session: string, said: string): Promise<void> {
  const resumed = await resumeWithReasonix(session, {
    workspace: join(await tempDir('rxstore-crash-ws-'), 'ws'),
    prompt: 'Where were we?',
  });
  try {
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.requests[0]!.messages.map((message) => message.content)).toContain(said);
  } finally {
    await rm(resumed.home, { recursive: true, force: true });
  }
}

const withReasonix = reasonixBinary() !== null;
const reasonixNote = withReasonix ? '' : ` (the real Reasonix's verdict skipped: ${reasonixAbsentMessage()})`;

describe('a writer killed by SIGKILL at each of its durable steps (fail points), as by a power cut', () => {
  it(`migrate jsonl-to-v4: the source is unchanged, no partial session is visible, a re-run completes with the clean run's session${reasonixNote}`, async () => {
    const template = await jsonlTemplate(20);
    const source = await treeDigest(join(template.dir, 'sessions'));
    const fresh = async () => {
      const dir = await tempDir('rxstore-crash-');
      await cp(template.dir, dir, { recursive: true });
      return {
        dir,
        store: join(dir, 'sessions-v4'),
        argv: [
          rxstoreBin,
          'migrate',
          'jsonl-to-v4',
          join(dir, 'sessions', 'crash.jsonl'),
          '--to',
          join(dir, 'sessions-v4'),
        ],
      };
    };
    const mapOf = async (store: string) => {
      const map = JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8')) as {
        entries: Record<string, unknown>[];
      };
      return map.entries.map(({ createdAt, sourcePath, targetId, ...entry }) => entry);
    };
    // The target id is derived from the transcript's path, which each trial has its own of.
    const pathsOf = async (dir: string) =>
      (await visiblePaths(dir)).map((path) => path.replace(/^sessions-v4\/(?!migration-map)[^/]+/, 'sessions-v4/<id>'));
    const clean = await fresh();
    const hits = await traceFailPoints(clean.argv);
    expectSteps(hits, [
      'create.staging-made',
      'atomic.temp-written',
      'atomic.temp-synced',
      'atomic.before-rename',
      'atomic.renamed',
      'dir.synced',
      'new-file.written',
      'new-file.synced',
      'content.linked',
      'content.temp-removed',
      'create.batch-written',
      'create.log-synced',
      'create.before-publish',
      'create.published',
    ]);
    const [session] = await visibleSessions(clean.store);
    const migrated = await transcriptOf(session!);
    const cleanPaths = await pathsOf(clean.dir);
    const cleanMap = await mapOf(clean.store);
    let judged: string | undefined;
    await forEachHit(hits, PARALLEL, async (point) => {
      const trial = await fresh();
      const before = await pathsOf(trial.dir);
      await killAtFailPoint(trial.argv, point);
      await expectSourceAsItWas(join(trial.dir, 'sessions'), source);
      expectNothingHalfMade(
        (await pathsOf(trial.dir)).filter((path) => path !== `sessions/${LEASE}`),
        before,
        cleanPaths,
      );
      for (const seen of await visibleSessions(trial.store)) expect(await transcriptOf(seen)).toBe(migrated);
      const rerun = await runNodeChild(trial.argv);
      expect(rerun.code, rerun.stderr).toBe(0);
      const sessions = await visibleSessions(trial.store);
      expect(sessions).toHaveLength(1);
      expect(await transcriptOf(sessions[0]!)).toBe(migrated);
      expect(await mapOf(trial.store)).toEqual(cleanMap);
      expect(await pathsOf(trial.dir)).toEqual(cleanPaths);
      expect(await treeDigest(join(trial.dir, 'sessions'))).toBe(source);
      if (point.name === 'create.published') judged = sessions[0];
    });
    if (withReasonix) await expectReasonixResumes(judged!, 'question 7 ·······');
  }, 600_000);

  describe('on a session', () => {
    let template: string;
    let log: Buffer;
    beforeAll(async () => {
      template = await bigSession(join(await tempDir('rxstore-crash-template-'), 'sessions-v4'), 20);
      log = await readFile(join(template, 'events.frames'));
    });
    const evidenceOf = async (dir: string) =>
      Promise.all(
        (await readdir(dir))
          .filter((name) => /^events\.torn-\d+\.tail$/.test(name))
          .map((name) => readFile(join(dir, name))),
      );

    it(`repair: the log is torn as it was or cut with every cut byte kept, and a re-run completes the cut${reasonixNote}`, async () => {
      const tornAt = log.length - 9;
      const torn = log.subarray(0, tornAt);
      const fresh = async () => {
        const dir = await copySession(template);
        await truncate(join(dir, 'events.frames'), tornAt);
        return { dir, argv: [rxstoreBin, 'repair', dir] };
      };
      const clean = await fresh();
      const hits = await traceFailPoints(clean.argv);
      expectSteps(hits, [
        'new-file.written',
        'new-file.synced',
        'repair.evidence-linked',
        'repair.staged-removed',
        'dir.synced',
        'repair.caches-removed',
        'repair.truncated',
        'repair.log-synced',
      ]);
      const repaired = await readFile(join(clean.dir, 'events.frames'));
      const [tail] = await evidenceOf(clean.dir);
      expect(Buffer.concat([repaired, tail!])).toEqual(torn);
      const cleanPaths = await visiblePaths(clean.dir);
      let judged: string | undefined;
      await forEachHit(hits, PARALLEL, async (point) => {
        const trial = await fresh();
        const before = await visiblePaths(trial.dir);
        await killAtFailPoint(trial.argv, point);
        const now = await readFile(join(trial.dir, 'events.frames'));
        const evidence = await evidenceOf(trial.dir);
        // Either the log is as it was, or it was cut and the cut bytes are kept whole.
        if (now.equals(repaired)) expect(evidence.length).toBeGreaterThan(0);
        else expect(now).toEqual(torn);
        for (const kept of evidence) expect(kept).toEqual(tail);
        expectNothingHalfMade(await visiblePaths(trial.dir), before, cleanPaths);
        const rerun = await runNodeChild(trial.argv);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(await readFile(join(trial.dir, 'events.frames'))).toEqual(repaired);
        expect((await readSession(trial.dir)).status).toBe('ok');
        const kept = await evidenceOf(trial.dir);
        expect(kept.length).toBeGreaterThan(0);
        for (const one of kept) expect(one).toEqual(tail);
        expect(await visiblePaths(trial.dir)).toEqual(cleanPaths);
        if (point.name === 'repair.truncated') judged = trial.dir;
      });
      if (withReasonix) await expectReasonixResumes(judged!, 'question 18');
    }, 600_000);

    it(`salvage: the original is unchanged, no partial session is visible, a re-run completes with the clean run's session${reasonixNote}`, async () => {
      const damaged = await copySession(template);
      const ends = await endFrames(damaged);
      await replaceFrame(damaged, ends[Math.floor(ends.length / 2)]!, Buffer.alloc(0));
      const fresh = async () => {
        const dir = await copySession(damaged);
        const rescued = join(dir, '..', '..', 'rescued');
        // The store salvage --to adds to: one that is there.
        await mkdir(rescued);
        return {
          dir,
          rescued,
          root: join(dir, '..', '..'),
          digest: await treeDigest(dir),
          argv: [rxstoreBin, 'salvage', dir, '--to', rescued],
        };
      };
      const clean = await fresh();
      const hits = await traceFailPoints(clean.argv);
      expectSteps(hits, [
        'create.staging-made',
        'atomic.renamed',
        'new-file.synced',
        'content.linked',
        'create.batch-written',
        'create.log-synced',
        'create.before-publish',
        'create.published',
        'dir.synced',
      ]);
      const [session] = await visibleSessions(clean.rescued);
      const salvaged = await transcriptOf(session!);
      const cleanPaths = await visiblePaths(clean.root);
      let judged: string | undefined;
      await forEachHit(hits, PARALLEL, async (point) => {
        const trial = await fresh();
        const before = await visiblePaths(trial.root);
        await killAtFailPoint(trial.argv, point);
        expect(await treeDigest(trial.dir)).toBe(trial.digest);
        expectNothingHalfMade(await visiblePaths(trial.root), before, cleanPaths);
        for (const seen of await visibleSessions(trial.rescued)) expect(await transcriptOf(seen)).toBe(salvaged);
        const rerun = await runNodeChild(trial.argv);
        expect(rerun.code, rerun.stderr).toBe(0);
        const sessions = await visibleSessions(trial.rescued);
        expect(sessions).toHaveLength(1);
        expect(await transcriptOf(sessions[0]!)).toBe(salvaged);
        expect(await visiblePaths(trial.root)).toEqual(cleanPaths);
        expect(await treeDigest(trial.dir)).toBe(trial.digest);
        if (point.name === 'create.published') judged = sessions[0];
      });
      if (withReasonix) await expectReasonixResumes(judged!, 'question 19');
    }, 600_000);

    it(`export: the session is unchanged, the transcript and its meta appear whole or not at all, a re-run completes with the clean run's files${reasonixNote}`, async () => {
      const digest = await treeDigest(join(template, '..'));
      const fresh = async () => {
        const dir = await tempDir('rxstore-crash-export-');
        return {
          dir,
          out: join(dir, 'exported.jsonl'),
          argv: [rxstoreBin, 'export', template, '--to', join(dir, 'exported.jsonl')],
        };
      };
      const clean = await fresh();
      const hits = await traceFailPoints(clean.argv);
      expectSteps(hits, [
        'atomic.temp-written',
        'atomic.temp-synced',
        'atomic.before-rename',
        'atomic.renamed',
        'dir.synced',
      ]);
      const files = async (dir: string) =>
        Object.fromEntries(
          await Promise.all(
            (await visiblePaths(dir)).map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const),
          ),
        );
      const exported = await files(clean.dir);
      expect(Object.keys(exported)).toEqual(['exported.jsonl', 'exported.jsonl.meta']);
      let judged: string | undefined;
      await forEachHit(hits, PARALLEL, async (point) => {
        const trial = await fresh();
        await killAtFailPoint(trial.argv, point);
        expect(await treeDigest(join(template, '..'))).toBe(digest);
        for (const [name, text] of Object.entries(await files(trial.dir))) expect(text).toBe(exported[name]);
        const rerun = await runNodeChild(trial.argv);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(await files(trial.dir)).toEqual(exported);
        if (point.name === 'atomic.renamed' && point.hit === 1) judged = trial.out;
      });
      if (withReasonix) {
        const home = await tempDir('rxstore-crash-export-home-');
        const workspace = join(home, 'ws');
        await mkdir(workspace);
        const mock = await startMockModel([{ text: 'Back again.' }]);
        try {
          const run = await runReasonix({
            home,
            cwd: workspace,
            args: ['run', '--resume', judged!, 'Where were we?'],
            mock,
          });
          expect(run.code, run.stderr).toBe(0);
          expect(mock.chatRequests()[0]!.messages.map((message) => message.content)).toContain('question 19');
        } finally {
          await mock.close();
        }
      }
    }, 600_000);

    it(`the writer's append: the session reads whole with none, some or all of the new batches, and a re-run appends them all${reasonixNote}`, async () => {
      const committed = (await readSession(template)).batches;
      const oldContents = await contentsOf(template);
      const fresh = async () => {
        const dir = await copySession(template);
        return { dir, argv: [writerChild, 'append', dir, String(APPENDED)] };
      };
      const clean = await fresh();
      const hits = await traceFailPoints(clean.argv);
      expectSteps(hits, [
        'atomic.renamed',
        'new-file.written',
        'new-file.synced',
        'content.linked',
        'append.log-written',
        'append.log-synced',
        'append.staged-removed',
        'dir.synced',
      ]);
      const appended = await contentsOf(clean.dir);
      expect((await readSession(clean.dir)).batches).toBe(committed + APPENDED);
      const cleanPaths = await visiblePaths(join(clean.dir, '..'));
      let judged: string | undefined;
      await forEachHit(hits, PARALLEL, async (point) => {
        const trial = await fresh();
        const before = await visiblePaths(join(trial.dir, '..'));
        await killAtFailPoint(trial.argv, point);
        const killed = await readSession(trial.dir);
        expect(killed.status).toBe('ok');
        const kept = killed.batches - committed;
        expect(kept).toBeGreaterThanOrEqual(0);
        expect(kept).toBeLessThanOrEqual(APPENDED);
        expect(await contentsOf(trial.dir)).toEqual(appended.slice(0, oldContents.length + 2 * kept));
        expectNothingHalfMade(await visiblePaths(join(trial.dir, '..')), before, cleanPaths);
        const rerun = await runNodeChild(trial.argv);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect((await readSession(trial.dir)).batches).toBe(committed + kept + APPENDED);
        expect(await contentsOf(trial.dir)).toEqual([
          ...appended.slice(0, oldContents.length + 2 * kept),
          ...appended.slice(oldContents.length),
        ]);
        if (point.name === 'append.log-written' && point.hit === 2) judged = trial.dir;
      });
      if (withReasonix) await expectReasonixResumes(judged!, 'question 2');
    }, 600_000);
  });

  it(`the writer's create: no partial session is visible, a re-run completes with the clean run's session${reasonixNote}`, async () => {
    const fresh = async () => {
      const root = await tempDir('rxstore-crash-create-');
      const store = join(root, 'sessions-v4');
      return { root, store, argv: [writerChild, 'create', store, '3'] };
    };
    const clean = await fresh();
    const hits = await traceFailPoints(clean.argv);
    expectSteps(hits, [
      'create.staging-made',
      'atomic.temp-written',
      'atomic.renamed',
      'new-file.synced',
      'content.linked',
      'create.batch-written',
      'create.log-synced',
      'create.before-publish',
      'create.published',
      'dir.synced',
    ]);
    const [session] = await visibleSessions(clean.store);
    const created = await contentsOf(session!);
    const cleanPaths = await visiblePaths(clean.root);
    let judged: string | undefined;
    await forEachHit(hits, PARALLEL, async (point) => {
      const trial = await fresh();
      await killAtFailPoint(trial.argv, point);
      expectNothingHalfMade(await visiblePaths(trial.root), [], cleanPaths);
      const seen = await visibleSessions(trial.store);
      for (const one of seen) expect(await contentsOf(one)).toEqual(created);
      // A published session is the whole session: a re-run would be refused, as it is over any existing session.
      if (seen.length === 0) {
        const rerun = await runNodeChild(trial.argv);
        expect(rerun.code, rerun.stderr).toBe(0);
      }
      const sessions = await visibleSessions(trial.store);
      expect(sessions).toHaveLength(1);
      expect(await contentsOf(sessions[0]!)).toEqual(created);
      expect(await visiblePaths(trial.root)).toEqual(cleanPaths);
      if (point.name === 'create.before-publish') judged = sessions[0];
    });
    if (withReasonix) await expectReasonixResumes(judged!, 'question 2');
  }, 600_000);
});

// A few kills at random times on top: they may land between the fail points (inside a write), or before or
// after the work, so they check the safety property only.
describe('a process killed with SIGKILL at a random point', () => {
  it(`during migrate jsonl-to-v4 (${TRIALS} trials): the source is unchanged, no partial session is visible, a re-run completes`, async () => {
    const { dir: template, lines } = await jsonlTemplate(300);
    const dirs = new Map<number, string>();
    const result = await crashTrials({
      trials: TRIALS,
      parallel: RANDOM_PARALLEL,
      seed: 1,
      prepare: async (trial) => {
        const dir = await tempDir('rxstore-crash-');
        await cp(template, dir, { recursive: true });
        dirs.set(trial, dir);
        return [
          rxstoreBin,
          'migrate',
          'jsonl-to-v4',
          join(dir, 'sessions', 'crash.jsonl'),
          '--to',
          join(dir, 'sessions-v4'),
        ];
      },
      verify: async (trial, rerun) => {
        const dir = dirs.get(trial)!;
        const source = await treeDigest(join(template, 'sessions'));
        await expectSourceAsItWas(join(dir, 'sessions'), source);
        for (const session of await visibleSessions(join(dir, 'sessions-v4'))) {
          expect((await readSession(session)).projection.transcript).toHaveLength(lines);
        }
        await rerun();
        const sessions = await visibleSessions(join(dir, 'sessions-v4'));
        expect(sessions).toHaveLength(1);
        const read = await readSession(sessions[0]!);
        expect(read.status).toBe('ok');
        expect(read.projection.transcript).toHaveLength(lines);
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
        parallel: RANDOM_PARALLEL,
        seed: 2,
        prepare: async (trial) => {
          const dir = await copySession(template);
          await truncate(join(dir, 'events.frames'), tornAt);
          dirs.set(trial, dir);
          return [rxstoreBin, 'repair', dir];
        },
        verify: async (trial, rerun) => {
          const dir = dirs.get(trial)!;
          const evidenceOf = async () =>
            Promise.all(
              (await readdir(dir))
                .filter((name) => /^events\.torn-\d+\.tail$/.test(name))
                .map((name) => readFile(join(dir, name))),
            );
          // Either the log is as it was, or it was cut and the cut bytes are kept.
          const now = await readFile(join(dir, 'events.frames'));
          if (now.length !== tornAt) {
            expect(Buffer.concat([now, (await evidenceOf())[0]!])).toEqual(log.subarray(0, tornAt));
          }
          expect(now).toEqual(log.subarray(0, now.length));
          await rerun();
          const read = await readSession(dir);
          expect(read.status).toBe('ok');
          for (const evidence of await evidenceOf())
            expect(
              Buffer.concat([read.durableEnd === 0 ? Buffer.alloc(0) : log.subarray(0, read.durableEnd), evidence]),
            ).toEqual(log.subarray(0, tornAt));
        },
      });
      report('repair', result);
    }, 900_000);

    it(`during salvage (${TRIALS} trials): the original is unchanged, no partial session is visible, a re-run completes`, async () => {
      const stores = new Map<number, { dir: string; digest: string }>();
      const result = await crashTrials({
        trials: TRIALS,
        parallel: RANDOM_PARALLEL,
        seed: 3,
        prepare: async (trial) => {
          const dir = await copySession(template);
          const ends = await endFrames(dir);
          await replaceFrame(dir, ends[Math.floor(ends.length / 2)]!, Buffer.alloc(0));
          stores.set(trial, { dir, digest: await treeDigest(dir) });
          await mkdir(join(dir, '..', '..', 'rescued'));
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
        parallel: RANDOM_PARALLEL,
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
      parallel: RANDOM_PARALLEL,
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
