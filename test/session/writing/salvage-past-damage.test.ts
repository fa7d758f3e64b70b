// Salvage where frames no longer decode: a flipped bit, garbage in the middle of the log, a damaged
// content store. What follows the damage must come back, the original must not change, `--to` and
// `--dry-run` must write where (and only where) they say, and the real Reasonix must resume the result.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_DIR } from '../../../src/codec/content-store.js';
import { FRAME_MAGIC } from '../../../src/codec/frame.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, editLog, endFrames, framesOf, type LoggedFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import {
  layForResume,
  reasonixBinary,
  reasonixTitle,
  resumeWithReasonix,
  runReasonix,
} from '../../support/reasonix/reasonix.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { seededRandom } from '../../support/seeded-random.js';
import { tempDir } from '../../support/temp-dir.js';
import { treeDigest } from '../../support/tree-digest.js';

interface SalvageReport {
  action: string;
  newDir: string;
  damage: { code: string; message: string; data: { offset?: number; file?: string } } | null;
  batchesKept: number;
  eventsKept: number;
  recoveredMessages: number;
  leftOutMessages: { host: number; localOnly: number; refused: number };
}

interface DamageCase {
  name: string;
  source: ReturnType<typeof fixture>;
  /** Damages the copy; returns the last sequence of the batch the damage is in (or follows), and where it is. */
  damage(dir: string): Promise<{ lostUpTo: number; kept: number; offset?: number; file?: string }>;
  problem: RegExp;
}

/** The last sequence of the batch a frame belongs to. */
/** How many committed batches end before an offset. */
const batchesBefore = async (dir: string, offset: number) =>
  (await endFrames(dir)).filter((frame) => frame.offset < offset).length;

async function batchLastSequence(dir: string, offset: number): Promise<number> {
  const end = (await endFrames(dir)).find((frame) => frame.offset >= offset)!;
  return (end.record.firstSeq as number) + (end.record.eventCount as number) - 1;
}

/** A middle frame holding a message event, with at least one later batch holding messages. */
async function middleMessageFrame(dir: string): Promise<LoggedFrame> {
  const messages = (await framesOf(dir)).filter(
    (frame) => (frame.record.event as { kind?: string } | undefined)?.kind === 'message/complete',
  );
  return messages[Math.floor(messages.length / 2)]!;
}

/** Bytes that look like nothing: no frame magic can start inside them. */
function garbage(length: number): Buffer {
  const random = seededRandom(19);
  const bytes = Buffer.from(Array.from({ length }, () => random.int(256)));
  for (let at = bytes.indexOf(FRAME_MAGIC); at >= 0; at = bytes.indexOf(FRAME_MAGIC)) bytes[at] = 0;
  return bytes;
}

const contentFile = async (dir: string, tree: 'objects' | 'indexes') => {
  const withRef = (await framesOf(dir)).find(
    (frame) => (frame.record.event as { payloadRef?: unknown } | undefined)?.payloadRef,
  )!;
  const { digest } = (withRef.record.event as { payloadRef: { digest: string } }).payloadRef;
  const shard = join(dirname(dir), CONTENT_DIR, tree, digest.slice(0, 2), digest.slice(2, 4));
  return { frame: withRef, file: join(shard, tree === 'objects' ? digest : `${digest}.json`) };
};

const cases: DamageCase[] = [
  {
    name: 'a bit flipped in a middle message frame',
    source: fixture('tool-calls'),
    damage: async (dir) => {
      const frame = await middleMessageFrame(dir);
      const lostUpTo = await batchLastSequence(dir, frame.offset);
      const kept = await batchesBefore(dir, frame.offset);
      await editLog(dir, (log) => {
        log[frame.offset + frame.bytes - 1]! ^= 0x01;
        return log;
      });
      return { lostUpTo, kept, offset: frame.offset };
    },
    problem: /decode v4 frame: CRC check failed/,
  },
  {
    name: '4 KiB of garbage between two middle batches',
    source: fixture('tool-calls'),
    damage: async (dir) => {
      const ends = await endFrames(dir);
      const end = ends[Math.floor(ends.length / 2)]!;
      const at = end.offset + end.bytes;
      const kept = await batchesBefore(dir, at);
      await editLog(dir, (log) => Buffer.concat([log.subarray(0, at), garbage(4096), log.subarray(at)]));
      return { lostUpTo: (end.record.firstSeq as number) + (end.record.eventCount as number) - 1, kept, offset: at };
    },
    problem: /invalid v4 frame magic/,
  },
  {
    name: 'a content object removed',
    source: fixture('payload-ref'),
    damage: async (dir) => {
      const { frame, file } = await contentFile(dir, 'objects');
      await rm(file);
      return {
        lostUpTo: await batchLastSequence(dir, frame.offset),
        kept: await batchesBefore(dir, frame.offset),
        file,
      };
    },
    problem: /content object is missing/,
  },
  {
    name: 'a bit flipped in a content object',
    source: fixture('payload-ref'),
    damage: async (dir) => {
      const { frame, file } = await contentFile(dir, 'objects');
      const bytes = await readFile(file);
      bytes[100]! ^= 0x01;
      await rm(file);
      await writeFile(file, bytes);
      return {
        lostUpTo: await batchLastSequence(dir, frame.offset),
        kept: await batchesBefore(dir, frame.offset),
        file,
      };
    },
    problem: /content object digest is/,
  },
];

const transcriptIds = async (dir: string) =>
  (await readSession(dir)).projection.transcript.map((entry) => entry.message.id);

/** Damages a copy, salvages it with the CLI and checks what rxstore promises; gives what Reasonix is then asked to resume. */
async function salvagePastDamage(fault: DamageCase) {
  const dir = await copySession(fault.source.dir);
  const where = await fault.damage(dir);
  const lostUpTo = where.lostUpTo;
  const store = dirname(dir);
  const storeBefore = await treeDigest(store);
  const sessionBefore = await treeDigest(dir);
  const intact = await readSession(fault.source.dir);
  // The person's view past the damage: host-authored and local-only records are not recovered.
  const after = intact.projection.transcript.filter(
    (entry) => entry.seq > lostUpTo && entry.message.origin !== 'host' && !entry.message.local_only,
  );
  expect(after.length).toBeGreaterThan(0);

  // --dry-run writes nothing, not even beside the original.
  const dry = await runCli(['salvage', dir, '--dry-run', '--json']);
  expect(dry.code, dry.stderr).toBe(0);
  expect(JSON.parse(dry.stdout).action).toBe('would-salvage');
  expect(existsSync(JSON.parse(dry.stdout).newDir)).toBe(false);
  expect(await treeDigest(store)).toBe(storeBefore);

  const salvaged = await runCli(['salvage', dir, '--json']);
  expect(salvaged.code, salvaged.stderr).toBe(0);
  const report = JSON.parse(salvaged.stdout) as SalvageReport;
  expect(report.action).toBe('salvaged');
  expect(report.damage?.message).toMatch(fault.problem);
  if (where.offset !== undefined) expect(report.damage?.data.offset).toBe(where.offset);
  if (where.file) expect(report.damage?.data.file).toBe(where.file);
  expect(report.batchesKept).toBe(where.kept);
  expect(report.recoveredMessages).toBeGreaterThanOrEqual(after.length);
  // Reasonix's own context messages past the damage are left out, and counted as such.
  const hostAfter = intact.projection.transcript.filter(
    (entry) => entry.seq > lostUpTo && entry.message.origin === 'host',
  ).length;
  expect(report.leftOutMessages.host).toBeGreaterThanOrEqual(hostAfter);
  expect(await treeDigest(dir)).toBe(sessionBefore);
  expect(dirname(report.newDir)).toBe(store);
  const rescuedDir = report.newDir;
  const rescued = await readSession(rescuedDir);
  expect(rescued.status).toBe('ok');
  const ids = await transcriptIds(rescuedDir);
  for (const entry of after) expect(ids).toContain(entry.message.id);
  const lastAnswer = intact.projection.transcript.at(-1)!.message.content;

  return { rescuedDir, after, lastAnswer };
}

describe('salvage past damage', () => {
  it('of a session with no damage says so, and keeps all of it', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const salvaged = await runCli(['salvage', dir]);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    expect(salvaged.stdout).toContain('no damage in its log, the new session holds all of it');
    const report = JSON.parse((await runCli(['salvage', dir, '--json'])).stdout) as SalvageReport;
    expect(report.damage).toBeNull();
    expect(report.eventsKept).toBe((await readSession(dir)).events.total);
  });

  it.concurrent.each(cases)(
    '$name: the messages after the damage come back, the original stays as it was',
    async (fault) => {
      await salvagePastDamage(fault);
    },
  );
});

describe.skipIf(!reasonixBinary())(reasonixTitle('salvage past damage, judged by the real Reasonix'), () => {
  it.concurrent.each(cases)(
    '$name: Reasonix resumes the salvaged session with the messages after the damage',
    async (fault) => {
      const { rescuedDir, after, lastAnswer } = await salvagePastDamage(fault);
      const resumed = await resumeWithReasonix(rescuedDir, {
        workspace: fault.source.workspace,
        prompt: 'What survived?',
      });
      try {
        expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
        const sent = resumed.requests[0]!.messages.map((message) => message.content);
        expect(sent).toContain(lastAnswer);
        for (const entry of after.filter((found) => found.message.role !== 'system')) {
          if (typeof entry.message.content === 'string' && entry.message.content)
            expect(sent).toContain(entry.message.content);
        }
      } finally {
        await rm(resumed.home, { recursive: true, force: true });
      }
    },
  );

  it('in the state root the original was refused in, Reasonix finds and resumes the salvaged session by its id', async () => {
    const source = fixture('payload-ref');
    const home = await tempDir('rxstore-salvage-home-');
    const dir = await layForResume(source.dir, home, source.workspace);
    const { file } = await contentFile(dir, 'objects');
    await rm(file);
    /** `reasonix run --resume <id>` in this state root, as its user would run it. */
    const resumeHere = async (id: string) => {
      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        const run = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', id, 'What survived?'],
          mock,
          permissionMode: 'danger-full-access',
        });
        return {
          code: run.code,
          said: `${run.stdout}\n${run.stderr}`,
          sent: mock.chatRequests()[0]?.messages.map((message) => message.content) ?? [],
        };
      } finally {
        await mock.close();
      }
    };
    // Reasonix refuses the original where it lies (and leaves the state root as its user then has it).
    expect((await resumeHere(basename(dir))).code).toBe(1);

    const salvaged = await runCli(['salvage', dir, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const report = JSON.parse(salvaged.stdout) as SalvageReport;
    expect(dirname(report.newDir)).toBe(dirname(dir));
    const resumed = await resumeHere(basename(report.newDir));
    expect(resumed.code, resumed.said).toBe(0);
    expect(resumed.sent).toContain((await readSession(source.dir)).projection.transcript.at(-1)!.message.content);
  });

  it('--to puts the salvaged session in another store, --dry-run with --to writes nothing, and Reasonix resumes it there', async () => {
    const source = fixture('tool-calls');
    const dir = await copySession(source.dir);
    const frame = await middleMessageFrame(dir);
    await editLog(dir, (log) => {
      log[frame.offset + frame.bytes - 1]! ^= 0x01;
      return log;
    });
    const store = dirname(dir);
    const storeBefore = await treeDigest(store);
    const target = join(await tempDir('rxstore-salvage-to-'), 'elsewhere', 'sessions-v4');
    // A store named with --to is one that is there.
    await mkdir(target, { recursive: true });

    const dry = await runCli(['salvage', dir, '--to', target, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dirname(JSON.parse(dry.stdout).newDir)).toBe(target);
    expect(await readdir(target)).toEqual([]);

    const salvaged = await runCli(['salvage', dir, '--to', target, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const report = JSON.parse(salvaged.stdout) as SalvageReport;
    expect(dirname(report.newDir)).toBe(target);
    // Nothing at all was written to the original's store.
    expect(await treeDigest(store)).toBe(storeBefore);
    const rescued = await readSession(report.newDir);
    expect(rescued.status).toBe('ok');
    expect(rescued.manifest?.source?.path).toBe(dir);

    const lastAnswer = (await readSession(source.dir)).projection.transcript.at(-1)!.message.content;
    const resumed = await resumeWithReasonix(report.newDir, { workspace: source.workspace, prompt: 'What survived?' });
    try {
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      expect(resumed.requests[0]!.messages.map((message) => message.content)).toContain(lastAnswer);
    } finally {
      await rm(resumed.home, { recursive: true, force: true });
    }
  });
});
