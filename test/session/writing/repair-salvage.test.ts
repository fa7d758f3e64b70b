import { readdir, readFile, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, cutLog, endFrames, replaceFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import {
  layForResume,
  reasonixBinary,
  reasonixTitle,
  resumeWithReasonix,
  runReasonix,
} from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';
import { treeDigest } from '../../support/tree-digest.js';

const source = fixture('tool-calls');
const tornEvidence = async (dir: string) =>
  (await readdir(dir)).filter((name) => /^events\.torn-\d+\.tail$/.test(name));

describe.skipIf(!reasonixBinary())(reasonixTitle('repair and salvage, judged by the real Reasonix'), () => {
  it('while Reasonix runs a turn, inspect says the session is open and repair refuses', async () => {
    const home = await tempDir('rxstore-live-');
    const dir = await layForResume(source.dir, home, source.workspace);
    // The turn stays open until the test has looked: no timing decides what it sees.
    let endTurn!: () => void;
    const turnMayEnd = new Promise<void>((resolve) => (endTurn = resolve));
    const mock = await startMockModel([{ text: 'Slow answer.', holdUntil: turnMayEnd }]);
    try {
      const running = runReasonix({
        home,
        cwd: source.workspace,
        args: ['run', '--resume', source.id, 'Take your time.'],
        mock,
      });
      await mock.waitForChatRequests(1);
      const inspected = await runCli(['inspect', dir, '--json']);
      const report = JSON.parse(inspected.stdout) as {
        openInRunningReasonix: boolean;
        problems: { code: string; severity: string }[];
      };
      expect(report.openInRunningReasonix).toBe(true);
      // A warning, with its own code: the refusal's code (RX_WRITER_OWNED) is only for what was refused.
      expect(report.problems).toContainEqual(
        expect.objectContaining({ code: 'RX_OPEN_IN_REASONIX', severity: 'warning' }),
      );
      expect(report.problems.map((problem) => problem.code)).not.toContain('RX_WRITER_OWNED');
      expect((await runCli(['inspect', dir])).stdout).toMatch(/open +in a running Reasonix/);
      const repaired = await runCli(['repair', dir]);
      expect(repaired.code).toBe(1);
      expect(repaired.stderr).toMatch(/RX_WRITER_OWNED: .*session writer is owned by another runtime/);
      endTurn();
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await mock.close();
    }
    expect(JSON.parse((await runCli(['inspect', dir, '--json'])).stdout).openInRunningReasonix).toBe(false);
  });

  it('repair of a torn copy keeps the cut bytes, and Reasonix resumes the repaired session', async () => {
    const dir = await copySession(source.dir);
    const before = await readSession(dir);
    await cutLog(dir, 7);
    const torn = await readSession(dir);
    expect(torn.status).toBe('torn-tail');
    const dry = await runCli(['repair', dir, '--dry-run']);
    expect(dry.stdout).toMatch(/would cut \d+ torn bytes/);
    expect(await tornEvidence(dir)).toEqual([]);
    const repaired = await runCli(['repair', dir, '--json']);
    expect(repaired.code, repaired.stderr).toBe(0);
    const report = JSON.parse(repaired.stdout);
    expect(report.action).toBe('repaired');
    expect((await readFile(report.evidence)).length).toBe(torn.tornTail!.bytes);
    const after = await readSession(dir);
    expect(after.status).toBe('ok');
    expect(after.batches).toBe(before.batches - 1);
    expect((await runCli(['repair', dir])).stdout).toMatch(/nothing to repair/);

    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Still there?' });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await tornEvidence(resumed.sessionDir)).toEqual(await tornEvidence(dir));
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });

  it('repair refuses a damaged log and points to salvage', async () => {
    const dir = await copySession(source.dir);
    const ends = await endFrames(dir);
    await replaceFrame(dir, ends[Math.floor(ends.length / 2)]!, Buffer.alloc(0));
    const before = await treeDigest(dir);
    const repaired = await runCli(['repair', dir]);
    // Refused, not a usage error: the session is what is wrong (exit 1), and one line says where and what to do.
    expect(repaired.code).toBe(1);
    expect(repaired.stderr).toMatch(
      /^rxstore: RX_DAMAGED_STORE: \S+events\.frames at offset \d+: the session is damaged, not torn \(.*\); .*use rxstore salvage \S+\n$/,
    );
    expect(await treeDigest(dir)).toBe(before);
  });

  it('salvage of a session with a middle batch/end removed keeps every batch before the damage, and Reasonix resumes it', async () => {
    const dir = await copySession(source.dir);
    const ends = await endFrames(dir);
    const cut = Math.floor(ends.length / 2);
    await replaceFrame(dir, ends[cut]!, Buffer.alloc(0));
    const original = await treeDigest(dir);
    const intact = await readSession(source.dir);

    const dry = await runCli(['salvage', dir, '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout).action).toBe('would-salvage');
    const salvaged = await runCli(['salvage', dir, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const report = JSON.parse(salvaged.stdout);
    // The dry run named the session the real run wrote; a second run finds it there and writes nothing.
    expect(report.newDir).toBe(JSON.parse(dry.stdout).newDir);
    const again = await runCli(['salvage', dir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'already-salvaged', newDir: report.newDir });
    expect(report.damage.message).toMatch(/nested v4 batch/);
    expect(report.batchesKept).toBe(cut);
    expect(await treeDigest(dir)).toBe(original);

    const rescued = await readSession(report.newDir);
    expect(rescued.status).toBe('ok');
    expect(rescued.manifest?.source?.path).toBe(dir);
    // The person's view past the damage: the messages of the later turns are back.
    const lastAnswer = intact.projection.transcript.at(-1)!.message.content;
    expect(rescued.projection.transcript.map((entry) => entry.message.content)).toContain(lastAnswer);
    const resumed = await resumeWithReasonix(report.newDir, { workspace: source.workspace, prompt: 'What survived?' });
    try {
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.requests[0]!.messages.map((message) => message.content)).toContain(lastAnswer);
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
