// The cut `rxstore repair` makes is the cut the real Reasonix makes when it opens the same torn copy:
// the same durable end, the same bytes kept as evidence (spec §3.4). A repair that cut one committed
// batch too many, or kept one byte too few, fails here.
import { readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copySession, endFrames, framesOf, logOf, replaceFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

const source = fixture('tool-calls');

interface TornShape {
  name: string;
  tear(dir: string): Promise<void>;
}

const lastFrame = async (dir: string) => (await framesOf(dir)).at(-1)!;

const shapes: TornShape[] = [
  {
    name: 'the last frame cut inside its compressed bytes',
    tear: async (dir) => {
      const last = await lastFrame(dir);
      await truncate(logOf(dir), last.offset + last.bytes - 7);
    },
  },
  {
    name: 'the last frame cut inside its 12-byte header',
    tear: async (dir) => {
      const last = await lastFrame(dir);
      await truncate(logOf(dir), last.offset + 5);
    },
  },
  {
    name: 'the final batch/end missing (a begin and its events without an end)',
    tear: async (dir) => replaceFrame(dir, (await endFrames(dir)).at(-1)!, Buffer.alloc(0)),
  },
  {
    name: 'a cut right after the final batch/begin, the event half written',
    tear: async (dir) => {
      const frames = await framesOf(dir);
      const begin = frames.findLast((frame) => frame.record.recordType === 'batch/begin')!;
      await truncate(logOf(dir), begin.offset + begin.bytes + 20);
    },
  },
];

const evidenceFiles = async (dir: string) =>
  (await readdir(dir)).filter((name) => /^events\.torn-\d+\.tail$/.test(name));

describe.skipIf(!reasonixBinary())(reasonixTitle('repair cuts where Reasonix 1.38.11 cuts'), () => {
  it.concurrent.each(shapes)('$name', async (shape) => {
    const torn = await copySession(source.dir);
    await shape.tear(torn);
    const tornLog = await readFile(logOf(torn));
    const forRepair = await copySession(torn);

    const repaired = await runCli(['repair', forRepair, '--json']);
    expect(repaired.code, repaired.stderr).toBe(0);
    const report = JSON.parse(repaired.stdout) as { action: string; durableEnd: number; evidence: string };
    expect(report.action).toBe('repaired');
    const ourLog = await readFile(logOf(forRepair));
    const ourEvidence = await readFile(report.evidence);

    const resumed = await resumeWithReasonix(torn, { workspace: source.workspace, prompt: 'Are you there?' });
    try {
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const theirEvidenceNames = await evidenceFiles(resumed.sessionDir);
      expect(theirEvidenceNames).toHaveLength(1);
      const theirEvidence = await readFile(join(resumed.sessionDir, theirEvidenceNames[0]!));
      const theirLog = await readFile(logOf(resumed.sessionDir));
      const theirCut = tornLog.length - theirEvidence.length;

      // Reasonix kept exactly the bytes after its cut; rxstore kept the same bytes and cut at the same offset.
      expect(theirEvidence.equals(tornLog.subarray(theirCut))).toBe(true);
      expect(ourEvidence.equals(theirEvidence)).toBe(true);
      expect(report.durableEnd).toBe(theirCut);
      expect(ourLog.length).toBe(theirCut);
      // Up to the cut both logs are the torn log's committed prefix; Reasonix then appended its new turn.
      expect(ourLog.equals(theirLog.subarray(0, theirCut))).toBe(true);
      expect(theirLog.length).toBeGreaterThan(theirCut);
      expect(ourLog.equals(tornLog.subarray(0, theirCut))).toBe(true);
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
    // The copy Reasonix opened was laid out elsewhere: the torn source is as it was.
    expect((await stat(logOf(torn))).size).toBe(tornLog.length);
  });
});
