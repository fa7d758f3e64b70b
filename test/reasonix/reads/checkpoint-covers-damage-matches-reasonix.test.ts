import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../src/codec/frame.js';
import { readSince } from '../../../src/session/cursors/read-since.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { repairSession } from '../../../src/session/writing/repair-session.js';
import { framesOf, logOf, type LoggedFrame } from '../../support/faults/faults.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import {
  copyOfResumed,
  resume,
  resumeCopy,
  resumedOnce,
  source,
  type ResumedSession,
} from '../../support/reasonix/recovery-cache.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * Reasonix 1.38.11 opens a session from its recovery checkpoint when the checkpoint's anchor batch (the last it
 * covers) and every batch after it read whole, and then reads nothing of the log before the anchor: damage there
 * does not stop it, and it goes on and appends. Without a checkpoint it accepts (the cache gone, the storage
 * identity missing, renewed or naming other first bytes), or with damage from the anchor on, it reads the whole
 * log and refuses. rxstore still says the damage (what it reads stops there), and says which Reasonix does.
 */

/** The batches of a log: where each begins and ends. */
async function batchesOf(dir: string): Promise<{ offset: number; end: number }[]> {
  const spans: { offset: number; end: number }[] = [];
  for (const frame of await framesOf(dir)) {
    if (frame.record.recordType === 'batch/begin') spans.push({ offset: frame.offset, end: frame.offset });
    if (frame.record.recordType === 'batch/end') spans.at(-1)!.end = frame.offset + frame.bytes;
  }
  return spans;
}

/** Flips one byte of the log, the size kept: the middle byte of batch `batch` (negative from the end), or byte `at`. */
async function flip(dir: string, where: { batch: number } | { at: number }): Promise<void> {
  const log = await readFile(logOf(dir));
  const batch = 'batch' in where ? (await batchesOf(dir)).at(where.batch)! : undefined;
  const offset = batch ? Math.floor((batch.offset + batch.end) / 2) : (where as { at: number }).at;
  log[offset]! ^= 0xff;
  await writeFile(logOf(dir), log);
}

/**
 * Flips one bit of the compressed size in a frame's header (the second frame of batch `batch`): the frame then
 * declares a megabyte more, within the 8 MiB a frame may hold but past the end of the log, so that a read of the
 * log from its start takes the bytes from that frame on for a torn tail.
 */
async function stretchFrame(dir: string, batch: number): Promise<void> {
  const { offset } = (await batchesOf(dir)).at(batch)!;
  const frame = (await framesOf(dir)).find((each) => each.offset > offset)!;
  const log = await readFile(logOf(dir));
  expect(log.length).toBeLessThan(1024 * 1024);
  log[frame.offset + 5]! ^= 0x10;
  await writeFile(logOf(dir), log);
}

/**
 * Edits the record of the first (or last) `kind` event after the first batch, signs its batch again, and keeps the batch's
 * size (a skippable frame after the last record's zstd frame, which Reasonix passes over): every offset after it,
 * the checkpoint's anchor among them, stays where it was. A log Reasonix verifies, saying what the edit made it say.
 */
async function rewriteEventInPlace(
  dir: string,
  kind: string,
  edit: (text: string) => string,
  which: 'first' | 'last' = 'first',
): Promise<void> {
  const frames = await framesOf(dir);
  const firstEnd = frames.findIndex((frame) => frame.record.recordType === 'batch/end');
  const isIt = (frame: LoggedFrame, index: number) => index > firstEnd && frame.raw.includes(`"kind":"${kind}"`);
  const at = which === 'first' ? frames.findIndex(isIt) : frames.findLastIndex(isIt);
  const begin = frames.findLastIndex((frame, index) => index < at && frame.record.recordType === 'batch/begin');
  const end = frames.findIndex((frame, index) => index > at && frame.record.recordType === 'batch/end');
  const texts = frames.slice(begin, end + 1).map((frame) => frame.raw.toString('utf8'));
  texts[at - begin] = edit(texts[at - begin]!);
  const digest = createHash('sha256');
  for (const text of texts.slice(0, -1)) digest.update(text).update(Buffer.from([0]));
  texts[texts.length - 1] = texts.at(-1)!.replace(/"sha256":"[0-9a-f]*"/, `"sha256":"${digest.digest('hex')}"`);
  const encoded = texts.map((text) => encodeFrame(Buffer.from(text)));
  const start = frames[begin]!.offset;
  const stop = frames[end]!.offset + frames[end]!.bytes;
  const pad = stop - start - encoded.reduce((sum, frame) => sum + frame.length, 0);
  if (pad < 8) throw new Error(`the batch at ${start} re-encoded leaves ${pad} bytes, too few for a skippable frame`);
  const skippable = Buffer.alloc(pad);
  skippable.writeUInt32LE(0x184d2a5f, 0);
  skippable.writeUInt32LE(pad - 8, 4);
  const last = encoded.at(-1)!;
  const header = Buffer.from(last.subarray(0, 12));
  header.writeUInt32BE(last.length - 12 + pad, 4);
  encoded[encoded.length - 1] = Buffer.concat([header, last.subarray(12), skippable]);
  const log = await readFile(logOf(dir));
  await writeFile(logOf(dir), Buffer.concat([log.subarray(0, start), ...encoded, log.subarray(stop)]));
}

const identityOf = (dir: string) => join(dir, 'storage.identity.json');
async function editIdentity(dir: string, edit: (identity: Record<string, unknown>) => void): Promise<void> {
  const identity = JSON.parse(await readFile(identityOf(dir), 'utf8')) as Record<string, unknown>;
  edit(identity);
  await writeFile(identityOf(dir), `${JSON.stringify(identity)}\n`);
}

/** A session resumed twice (its checkpoint anchored at its last batch), with the cache as the first resume left it. */
interface Resumed extends ResumedSession {
  olderCache: string;
}

const early = { batch: 3 } as const;
const cases: [name: string, change: (session: Resumed) => Promise<void>, opens: boolean, code?: string][] = [
  ['a byte flipped in a middle batch, before the anchor', ({ dir }) => flip(dir, early), true],
  ['a byte flipped in the batch just before the anchor', ({ dir }) => flip(dir, { batch: -2 }), true],
  ['a byte flipped in the anchor batch', ({ dir }) => flip(dir, { batch: -1 }), false],
  ['a frame length run past the end of the log, before the anchor', ({ dir }) => stretchFrame(dir, early.batch), true],
  [
    'a frame length run past the end of the log, in the anchor batch: a torn tail, and the cache ahead of what is left',
    ({ dir }) => stretchFrame(dir, -1),
    false,
    'RX_RECOVERY_CACHE_AHEAD',
  ],
  ['a byte flipped in the first 64 bytes, which the prefix digest covers', ({ dir }) => flip(dir, { at: 40 }), false],
  [
    'damage before the anchor, the recovery cache removed',
    async ({ dir, cache }) => {
      await flip(dir, early);
      await rm(cache, { recursive: true });
    },
    false,
  ],
  [
    'damage before the anchor, recovery-v1.bolt removed',
    async ({ dir, cache }) => {
      await flip(dir, early);
      await rm(join(cache, 'recovery-v1.bolt'));
    },
    false,
  ],
  [
    'damage before the anchor, the checkpoint no database (its meta pages zeroed)',
    async ({ dir, cache }) => {
      await flip(dir, early);
      const bolt = await readFile(join(cache, 'recovery-v1.bolt'));
      await writeFile(join(cache, 'recovery-v1.bolt'), bolt.fill(0, 0, 8192));
    },
    false,
  ],
  [
    'damage before the anchor, recent-v1.json removed',
    async ({ dir, cache }) => {
      await flip(dir, early);
      await rm(join(cache, 'recent-v1.json'));
    },
    true,
  ],
  [
    'damage before the anchor, storage.identity.json removed',
    async ({ dir }) => {
      await flip(dir, early);
      await rm(identityOf(dir));
    },
    false,
  ],
  [
    'damage before the anchor, the identity of another generation',
    async ({ dir }) => {
      await flip(dir, early);
      await editIdentity(dir, (identity) => (identity.generation = `ffff${String(identity.generation).slice(4)}`));
    },
    false,
  ],
  [
    "damage before the anchor, the identity's prefix digest another log's",
    async ({ dir }) => {
      await flip(dir, early);
      await editIdentity(dir, (identity) => (identity.logPrefixDigest = '0'.repeat(64)));
    },
    false,
  ],
  [
    'damage before the anchor, the identity without a prefix digest',
    async ({ dir }) => {
      await flip(dir, early);
      await editIdentity(dir, (identity) => delete identity.logPrefixDigest);
    },
    true,
  ],
  [
    'an event of a kind Reasonix does not know, before the anchor',
    ({ dir }) => rewriteEventInPlace(dir, 'turn/start', (text) => text.replace('"turn/start"', '"turn/stxrt"')),
    true,
    'RX_UNSUPPORTED_VERSION',
  ],
  [
    'a message payload Reasonix refuses (an unknown field), before the anchor',
    ({ dir }) =>
      rewriteEventInPlace(dir, 'message/complete', (text) => {
        const payload = /"payload":"([^"]*)"/.exec(text)![1]!;
        const decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { message: object };
        const refused = { ...decoded, message: { ...decoded.message, host_authored: true } };
        return text.replace(payload, Buffer.from(JSON.stringify(refused)).toString('base64'));
      }),
    true,
    'RX_STRICT_PAYLOAD',
  ],
  [
    'an older checkpoint (batches appended since), damage before its anchor',
    async ({ dir, cache, olderCache }) => {
      await rm(cache, { recursive: true });
      await cp(olderCache, cache, { recursive: true });
      await flip(dir, early);
    },
    true,
  ],
  [
    'an older checkpoint, damage after its anchor',
    async ({ dir, cache, olderCache }) => {
      await rm(cache, { recursive: true });
      await cp(olderCache, cache, { recursive: true });
      await flip(dir, { batch: -1 });
    },
    false,
  ],
];

/** A turn/end made a `diagnostic` (which Reasonix reads and passes over), its batch signed again in place: the turn is not ended. */
const unendTurn = (dir: string, which: 'first' | 'last') =>
  rewriteEventInPlace(dir, 'turn/end', (text) => text.replace('"kind":"turn/end"', '"kind":"diagnostic"'), which);

/**
 * Logs whose turns Reasonix and a per-turn reading tell apart: Reasonix holds one turn open, the last started,
 * and any turn/end closes it; as it opens the session it closes that turn under `turn-finalize:<turn>`, which a
 * batch of the log may already hold. With its checkpoint (anchored at the last batch) it takes the open turn from
 * the checkpoint's projection instead.
 */
const turnCases: [name: string, change: (session: Resumed) => Promise<void>, opens: boolean][] = [
  ["the first turn's turn/end made a diagnostic", ({ dir }) => unendTurn(dir, 'first'), true],
  [
    "the first turn's turn/end made a diagnostic, the recovery cache removed",
    async ({ dir, cache }) => {
      await unendTurn(dir, 'first');
      await rm(cache, { recursive: true });
    },
    true,
  ],
  ["the last turn's turn/end made a diagnostic", ({ dir }) => unendTurn(dir, 'last'), true],
  [
    "the last turn's turn/end made a diagnostic, the recovery cache removed: its turn-finalize batch is in the log",
    async ({ dir, cache }) => {
      await unendTurn(dir, 'last');
      await rm(cache, { recursive: true });
    },
    false,
  ],
];

/** What rxstore says of the session: `inspect --json` and `where --json`, run as a person runs them. */
async function rxstoreSays({ home, dir, id }: ResumedSession) {
  const inspected = await runCli(['inspect', dir, '--json']);
  const where = await runCli(['where', id, '--json', '--home', home, '--cwd', source.workspace]);
  expect(where.code, where.stderr).toBe(0);
  const report = JSON.parse(inspected.stdout) as {
    status: string;
    problems: { code: string; severity: string; offset?: number }[];
    goesOnFrom: { checkpoint: string; anchorOffset: number; sequence: number; damagedAt: number | null } | null;
    tornTail: { offset: number; bytes: number } | null;
  };
  const [located] = JSON.parse(where.stdout) as [
    { copies: { path: string; resume: { resumes: boolean; reason: string; explanation: string } }[] },
  ];
  return { inspected, report, resume: located.copies.find((copy) => copy.path === dir)!.resume };
}

describe.skipIf(!reasonixBinary())(
  reasonixTitle('damage in a log its recovery checkpoint covers, judged by Reasonix 1.38.11'),
  () => {
    let base: Resumed;
    let olderCache: string;
    beforeAll(async () => {
      const session = await resumedOnce();
      olderCache = join(await tempDir('rxstore-older-cache-'), 'cache');
      await cp(session.cache, olderCache, { recursive: true });
      expect((await resume(session.home, session.id)).opens).toBe(true);
      base = { ...session, olderCache };
    });
    afterAll(async () => {
      if (base) await rm(base.home, { recursive: true, force: true });
    });

    it.concurrent.each(cases)('%s', async (_, change, opens, code = 'RX_DAMAGED_STORE') => {
      const session = { ...(await copyOfResumed(base)), olderCache };
      try {
        await change(session);
        const before = await readFile(logOf(session.dir));
        const says = await rxstoreSays(session);
        const reasonix = await resumeCopy(session);
        expect(reasonix.opens, reasonix.said).toBe(opens);
        // What rxstore reads stops at the damage, whatever Reasonix does with the session.
        expect(says.inspected.code).toBe(1);
        expect(says.report.status).toBe(code === 'RX_UNSUPPORTED_VERSION' ? 'unsupported' : 'damaged');
        expect(says.report.problems.find((problem) => problem.severity === 'error')?.code).toBe(code);
        expect(says.resume.resumes).toBe(opens);
        if (opens) {
          const damagedAt = says.report.problems.find((problem) => problem.severity === 'error')!.offset!;
          expect(says.report.goesOnFrom).toMatchObject({
            checkpoint: join(session.cache, 'recovery-v1.bolt'),
            damagedAt,
          });
          expect(damagedAt).toBeLessThan(says.report.goesOnFrom!.anchorOffset);
          expect(says.resume.reason).toBe('resumes-past-damage');
          expect(says.resume.explanation).toContain(`${says.report.status} at offset ${damagedAt}`);
          expect(says.resume.explanation).toContain('without that checkpoint');
        } else {
          expect(reasonix.said).toContain(
            code === 'RX_RECOVERY_CACHE_AHEAD'
              ? 'session operation id conflicts with an earlier batch'
              : 'damaged session store',
          );
          expect(says.report.goesOnFrom).toBeNull();
          expect(says.resume.reason).toBe('damaged');
        }
        expect(await readFile(logOf(session.dir))).toEqual(before);
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it.concurrent.each(turnCases)('%s', async (_, change, opens) => {
      const session = { ...(await copyOfResumed(base)), olderCache };
      try {
        await change(session);
        const says = await rxstoreSays(session);
        const reasonix = await resumeCopy(session);
        expect(reasonix.opens, reasonix.said).toBe(opens);
        expect(says.resume.resumes).toBe(opens);
        if (opens) expect(says.report.status, says.inspected.stdout).toBe('ok');
        else {
          expect(reasonix.said).toContain('session operation id conflicts with an earlier batch: "turn-finalize:');
          expect(says.report.problems.find((problem) => problem.severity === 'error')).toMatchObject({
            code: 'RX_DAMAGED_STORE',
          });
          expect(says.inspected.stdout).toContain('session operation id conflicts with an earlier batch');
        }
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it('Reasonix goes on past the damage turn after turn, and refuses once the cache is gone; repair leaves the cache', async () => {
      const session = await copyOfResumed(base);
      try {
        await flip(session.dir, early);
        const first = (await rxstoreSays(session)).report.goesOnFrom!;
        const size = (await stat(logOf(session.dir))).size;
        expect((await resume(session.home, session.id)).opens).toBe(true);
        expect((await stat(logOf(session.dir))).size).toBeGreaterThan(size);
        // Its new checkpoint covers the turn it appended; the damage is where it was.
        const after = await rxstoreSays(session);
        expect(after.report.status).toBe('damaged');
        expect(after.report.goesOnFrom).toMatchObject({ damagedAt: first.damagedAt });
        expect(after.report.goesOnFrom!.sequence).toBeGreaterThan(first.sequence);
        expect(after.resume.reason).toBe('resumes-past-damage');

        // A repair cuts torn tails only: it refuses, says Reasonix goes on from its checkpoint, and leaves the cache.
        const checkpoint = await readFile(join(session.cache, 'recovery-v1.bolt'));
        await expect(repairSession(session.dir)).rejects.toMatchObject({
          code: 'RX_DAMAGED_STORE',
          message: expect.stringContaining('Reasonix goes on with it from its recovery checkpoint'),
        });
        expect(await readFile(join(session.cache, 'recovery-v1.bolt'))).toEqual(checkpoint);

        // ls says it beside the damage; its summary cache, warm, sees the checkpoint go with the log untouched.
        const listed = async () => {
          const ls = await runCli(['ls', '--json', '--home', session.home]);
          return (JSON.parse(ls.stdout) as { id: string; status: string; goesOnFrom: unknown }[]).find(
            (row) => row.id === session.id,
          )!;
        };
        expect(await listed()).toMatchObject({ status: 'damaged', goesOnFrom: after.report.goesOnFrom });
        const row = (await runCli(['ls', '--home', session.home])).stdout;
        expect(row).toContain('Reasonix goes on with it from its recovery checkpoint');

        await rm(session.cache, { recursive: true });
        expect(await listed()).toMatchObject({ status: 'damaged', goesOnFrom: null });
        const gone = await rxstoreSays(session);
        expect(gone.report.goesOnFrom).toBeNull();
        expect(gone.resume.reason).toBe('damaged');
        const refused = await resume(session.home, session.id);
        expect(refused.opens).toBe(false);
        expect(refused.said).toContain('damaged session store: decode v4 frame');
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it('a frame length run past the end before the anchor is no torn tail: nothing reads past it in silence, repair cuts nothing, and Reasonix goes on with every batch', async () => {
      const session = await copyOfResumed(base);
      try {
        await stretchFrame(session.dir, early.batch);
        const before = await readFile(logOf(session.dir));
        const damage = { code: 'RX_DAMAGED_STORE', message: expect.stringContaining('damage, not a torn tail') };
        // An indexer's read since no cursor, as a whole read: the damage, never the batches before it as the whole log.
        await expect(readSince(session.dir, session.id)).rejects.toMatchObject(damage);
        await expect(repairSession(session.dir)).rejects.toMatchObject(damage);
        expect(await readFile(logOf(session.dir))).toEqual(before);
        expect((await resume(session.home, session.id)).opens).toBe(true);
        // Reasonix cut nothing: the log it went on with holds every byte it held, its turn after them.
        const after = await readFile(logOf(session.dir));
        expect(after.length).toBeGreaterThan(before.length);
        expect(after.subarray(0, before.length)).toEqual(before);
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it('damage before the anchor and bytes after the last batch: Reasonix goes on, cuts them as a torn tail, and rxstore says both', async () => {
      const session = await copyOfResumed(base);
      try {
        await flip(session.dir, early);
        const size = (await stat(logOf(session.dir))).size;
        await appendFile(logOf(session.dir), Buffer.from('garbage'));
        const says = await rxstoreSays(session);
        expect(says.resume.reason).toBe('resumes-past-damage');
        expect(says.report.tornTail).toEqual({ offset: size, bytes: 7 });
        expect(says.inspected.stdout).toContain('RX_TORN_TAIL');
        expect((await resume(session.home, session.id)).opens).toBe(true);
        const evidence = (await readdir(session.dir)).filter((name) => /^events\.torn-\d+\.tail$/.test(name));
        expect(evidence).toHaveLength(1);
        expect(await readFile(join(session.dir, evidence[0]!), 'utf8')).toBe('garbage');
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    /**
     * A resume killed after its first model request: the log gains the turn's first batches (the turn left open),
     * the current checkpoint is anchored at the last of them, the previous one where the log ended before (`size`).
     */
    async function killedResume(session: ResumedSession): Promise<number> {
      const size = (await stat(logOf(session.dir))).size;
      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        await runReasonix({
          home: session.home,
          cwd: source.workspace,
          args: ['run', '--resume', session.id, 'say ok'],
          mock,
          permissionMode: 'danger-full-access',
          interrupt: { afterChatRequests: 1, signal: 'SIGKILL' },
        });
      } finally {
        await mock.close();
      }
      expect((await stat(logOf(session.dir))).size).toBeGreaterThan(size);
      return size;
    }

    it('damage before the anchor, the log cut back into the batch after the previous checkpoint, after a turn Reasonix was killed in: it goes on from that checkpoint, cuts the torn tail, and its next operation is one the cache holds', async () => {
      const session = await copyOfResumed(base);
      try {
        const size = await killedResume(session);
        const next = (await batchesOf(session.dir)).find((batch) => batch.offset === size)!;
        const cut = Math.floor((next.offset + next.end) / 2);
        await flip(session.dir, early);
        await truncate(logOf(session.dir), cut);
        const says = await rxstoreSays(session);
        const reasonix = await resumeCopy(session);
        expect(reasonix.opens).toBe(false);
        expect(reasonix.said).toContain('session operation id conflicts with an earlier batch');
        expect(says.resume.resumes).toBe(false);
        expect(says.report.goesOnFrom).toBeNull();
        expect(says.report.problems.map((problem) => problem.code)).toContain('RX_RECOVERY_CACHE_AHEAD');
        // What Reasonix cuts as it opens the session, before it refuses it.
        expect(says.report.tornTail).toEqual({ offset: size, bytes: cut - size });
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it("damage before the anchor, and a batch after it under the open turn's turn-finalize operation: Reasonix goes on from its checkpoint and refuses to close the turn", async () => {
      const session = await copyOfResumed(base);
      try {
        await killedResume(session);
        const open = (await readSession(session.dir)).projection.turnLeftOpen.open;
        expect(open).not.toBe('');
        await appendBatches(
          session.dir,
          [{ operationId: `turn-finalize:${open}`, turnId: open, events: [{ kind: 'diagnostic', payload: {} }] }],
          { validate: false },
        );
        await flip(session.dir, early);
        const says = await rxstoreSays(session);
        const reasonix = await resumeCopy(session);
        expect(reasonix.opens).toBe(false);
        expect(reasonix.said).toContain(
          `session operation id conflicts with an earlier batch: "turn-finalize:${open}"`,
        );
        expect(says.resume.resumes).toBe(false);
        expect(says.report.goesOnFrom).toBeNull();
        expect(says.inspected.stdout).toContain(`conflicts with an earlier batch: \\"turn-finalize:${open}\\"`);
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });

    it('relocate moves the checkpoint with the session: Reasonix goes on past the damage from the new folder', async () => {
      const session = await copyOfResumed(base);
      try {
        await flip(session.dir, early);
        const moved = join(session.home, 'moved-project');
        await mkdir(moved);
        const relocated = await runCli(['relocate', source.workspace, moved, '--home', session.home, '--force']);
        expect(relocated.code, relocated.stderr).toBe(0);
        const where = await runCli(['where', session.id, '--json', '--home', session.home, '--cwd', moved]);
        const [located] = JSON.parse(where.stdout) as [{ resume: { reason: string } }];
        expect(located.resume.reason).toBe('resumes-past-damage');
        const mock = await startMockModel([{ text: 'Resumed.' }]);
        try {
          const run = await runReasonix({
            home: session.home,
            cwd: moved,
            args: ['run', '--resume', session.id, 'say ok'],
            mock,
            permissionMode: 'danger-full-access',
          });
          expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        } finally {
          await mock.close();
        }
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });
  },
);
