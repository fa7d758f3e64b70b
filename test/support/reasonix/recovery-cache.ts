// A session the real Reasonix 1.38.11 has resumed once, so that it has a recovery cache, and the changes to
// its log and checkpoint whose verdicts Reasonix gave (test/reasonix/reads/recovery-cache-matches-reasonix): shared with the
// in-process test, which holds rxstore to the same verdicts without a Reasonix run a case.
import { cp, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { boltDamage } from '../../../src/session/reading/bolt-damage.js';
import { repairSession } from '../../../src/session/writing/repair-session.js';
import { endFrames, logOf } from '../faults/faults.js';
import { fixture } from '../fixtures.js';
import { startMockModel } from './mock-model.js';
import { layForResume, runReasonix } from './reasonix.js';

export const source = fixture('plain-chat');

export async function resume(home: string, id: string): Promise<{ opens: boolean; said: string }> {
  const mock = await startMockModel([{ text: 'Resumed.' }]);
  try {
    const run = await runReasonix({
      home,
      cwd: source.workspace,
      args: ['run', '--resume', id, 'say ok'],
      mock,
      permissionMode: 'danger-full-access',
    });
    return { opens: run.code === 0, said: `${run.stdout}\n${run.stderr}` };
  } finally {
    await mock.close();
  }
}

export interface ResumedSession {
  /** The scratch state root (Reasonix's home). */
  home: string;
  dir: string;
  id: string;
  /** The session's `.recovery-cache/<id>/`. */
  cache: string;
}

/** A copy of a resumed session's state root, to change without changing the one it was copied from. */
export async function copyOfResumed(session: ResumedSession): Promise<ResumedSession> {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-recovery-copy-'));
  await cp(session.home, home, { recursive: true });
  const dir = join(home, session.dir.slice(session.home.length));
  return { home, dir, id: session.id, cache: join(dirname(dir), '.recovery-cache', session.id) };
}

/** A session Reasonix has resumed once (so it has a recovery cache), in a scratch state root of its own. */
export async function resumedOnce(): Promise<ResumedSession> {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-recovery-'));
  const dir = await layForResume(source.dir, home, source.workspace);
  expect((await resume(home, basename(dir))).opens).toBe(true);
  return { home, dir, id: basename(dir), cache: join(dirname(dir), '.recovery-cache', basename(dir)) };
}

/** Reasonix's verdict, judged on a copy of the state root: a resume changes the log and the cache. */
export async function resumeCopy(session: ResumedSession) {
  const judged = await mkdtemp(join(tmpdir(), 'rxstore-recovery-judged-'));
  try {
    await cp(session.home, judged, { recursive: true });
    return await resume(judged, session.id);
  } finally {
    await rm(judged, { recursive: true, force: true });
  }
}

export const cutWholeBatches = async (dir: string, batches: number) => {
  const ends = await endFrames(dir);
  const kept = ends.at(-1 - batches)!;
  await truncate(logOf(dir), kept.offset + kept.bytes);
};

/**
 * Changes to a resumed session's log or cache, each with whether Reasonix 1.38.11 opens the session after it;
 * the fourth element marks a change that itself runs Reasonix (its refused resume is part of the change).
 */
export const cacheAheadCases: [
  name: string,
  change: (session: ResumedSession) => Promise<void>,
  opens: boolean,
  runsReasonix?: true,
][] = [
  ['unchanged', async () => {}, true],
  ['the last batch cut off', ({ dir }) => cutWholeBatches(dir, 1), false],
  ['three batches cut off', ({ dir }) => cutWholeBatches(dir, 3), false],
  [
    'the last batch cut in the middle (a torn tail the cache knows)',
    async ({ dir }) => {
      const last = (await endFrames(dir)).at(-1)!;
      await truncate(logOf(dir), last.offset + last.bytes - 10);
    },
    false,
  ],
  // Reasonix's refused run writes recent-v1.json again from the log: its checkpoint still holds the turn's end.
  [
    'the last batch cut off, and a resume already refused',
    async ({ dir, home, id }) => {
      await cutWholeBatches(dir, 1);
      expect((await resume(home, id)).opens).toBe(false);
    },
    false,
    true,
  ],
  [
    'an older copy of the session put back',
    async ({ dir }) => {
      await rm(dir, { recursive: true });
      await cp(source.dir, dir, { recursive: true });
    },
    false,
  ],
  // Put back again after a refused resume, a repair and a turn: the cache holds more than the log, but not the
  // operation Reasonix writes next (the admission two past the log's last), so it goes on.
  [
    'an older log put back again, after a refused resume, a repair and a new turn',
    async ({ dir, home, id }) => {
      const older = await readFile(logOf(dir));
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), older);
      expect((await resume(home, id)).opens).toBe(false);
      await repairSession(dir);
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), older);
    },
    false,
    true,
  ],
  // The same, put back where the refused resume had left it: the turn taken since admitted its message at the
  // very sequence the next turn's admission takes.
  [
    'the log put back where a refused resume left it, after a repair and a new turn',
    async ({ dir, home, id }) => {
      const older = await readFile(logOf(dir));
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), older);
      expect((await resume(home, id)).opens).toBe(false);
      const refused = await readFile(logOf(dir));
      await repairSession(dir);
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), refused);
    },
    false,
    true,
  ],
  // An older log put back twice, a resume refused after each (each writes Reasonix's recent messages again to
  // match the log): the turn taken between the two admitted its message at the sequence the next turn's takes.
  [
    'an older log put back twice, a resume refused after each, a turn taken between',
    async ({ dir, home, id }) => {
      const older = await readFile(logOf(dir));
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), older);
      expect((await resume(home, id)).opens).toBe(false);
      expect((await resume(home, id)).opens).toBe(true);
      await writeFile(logOf(dir), older);
      expect((await resume(home, id)).opens).toBe(false);
    },
    false,
    true,
  ],
  // Reasonix keeps its operations by the generation the checkpoint itself was written under: its recent messages
  // beside it play no part.
  [
    'the last batch cut off, recent-v1.json removed',
    async ({ dir, cache }) => {
      await cutWholeBatches(dir, 1);
      await rm(join(cache, 'recent-v1.json'));
    },
    false,
  ],
  [
    'the last batch cut off, recent-v1.json not JSON',
    async ({ dir, cache }) => {
      await cutWholeBatches(dir, 1);
      await writeFile(join(cache, 'recent-v1.json'), 'not json');
    },
    false,
  ],
  [
    'the last batch cut off, the storage identity removed',
    async ({ dir }) => {
      await cutWholeBatches(dir, 1);
      await rm(join(dir, 'storage.identity.json'));
    },
    true,
  ],
  [
    'the last batch cut off, the recovery cache removed',
    async ({ dir, cache }) => {
      await cutWholeBatches(dir, 1);
      await rm(cache, { recursive: true });
    },
    true,
  ],
];

/** The pages of the checkpoint bbolt reaches when it opens it, and those it does not: each page zeroed in turn. */
export function pagesOf(bolt: Buffer, pageSize = 4096) {
  const reached: number[] = [];
  const unreached: number[] = [];
  for (let page = 2; page < bolt.length / pageSize; page += 1) {
    const zeroed = Buffer.from(bolt).fill(0, page * pageSize, (page + 1) * pageSize);
    (boltDamage(zeroed) ? reached : unreached).push(page);
  }
  return { reached, unreached };
}

const holdsData = (bolt: Buffer, page: number, pageSize = 4096) =>
  bolt.subarray(page * pageSize, (page + 1) * pageSize).some((byte) => byte !== 0);

export const zeroPage = (bolt: Buffer, page: number, pageSize = 4096) =>
  Buffer.from(bolt).fill(0, page * pageSize, (page + 1) * pageSize);

export const damagedCheckpoints: [string, (bolt: Buffer) => Buffer, boolean][] = [
  ['a page the database reaches zeroed', (bolt) => zeroPage(bolt, pagesOf(bolt).reached.at(-1)!), false],
  ['the file cut after its two meta pages', (bolt) => bolt.subarray(0, 8192), false],
  // The last pages of the file may never have been written: a freed page that still holds data, or the case changes nothing.
  [
    'a freed page zeroed (no longer reached)',
    (bolt) =>
      zeroPage(
        bolt,
        pagesOf(bolt)
          .unreached.filter((page) => holdsData(bolt, page))
          .at(-1)!,
      ),
    true,
  ],
  ['the newer meta page zeroed (bbolt takes the older)', (bolt) => zeroPage(bolt, 0), true],
  [
    'both meta pages zeroed (no database: Reasonix makes a new one)',
    (bolt) => Buffer.from(bolt).fill(0, 0, 8192),
    true,
  ],
  ['an empty file', () => Buffer.alloc(0), true],
  // bbolt refuses a file shorter than its two meta pages: Reasonix makes a new one, as for no database.
  [
    'the file cut to its first page (bbolt refuses it: Reasonix makes a new one)',
    (bolt) => bolt.subarray(0, 4096),
    true,
  ],
  ['the file cut inside its second meta page', (bolt) => bolt.subarray(0, 8191), true],
];
