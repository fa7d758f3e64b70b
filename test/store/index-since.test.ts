import { cp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CursorMismatchError,
  indexSince,
  machineRoots,
  openSession,
  type IndexCheckpoint,
  type IndexPiece,
  type IndexRecord,
} from '../../src/index.js';
import { editLog, framesOf, logOf } from '../support/faults/faults.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { RecordIndex } from '../support/sessions/record-index.js';
import { tempDir } from '../support/temp-dir.js';

/** A copy of a fixture's state root, to change. */
async function rootCopy(name: (typeof FIXTURE_NAMES)[number]): Promise<{ root: string; dir: string }> {
  const source = fixture(name);
  const root = join(await tempDir('rxstore-index-'), name);
  await cp(source.root, root, { recursive: true });
  return { root, dir: join(root, source.sessionDir) };
}

/** One run of `indexSince` over a state root, applied to `index` as an indexer applies it; the checkpoint kept as JSON. */
async function run(
  stateHome: string,
  index: MachineIndex,
  checkpoint?: string,
): Promise<{ pieces: IndexPiece[]; checkpoint: string }> {
  const { inputs, roots } = await machineRoots({ stateHome, env: {}, homeDir: stateHome });
  const indexRun = indexSince(roots.roots, {
    platform: inputs.platform,
    checkpoint: checkpoint === undefined ? undefined : JSON.parse(checkpoint),
  });
  const pieces: IndexPiece[] = [];
  for await (const piece of indexRun) {
    pieces.push(piece);
    index.apply(piece.records);
    index.sessions.set(piece.session.id, { title: piece.session.title, workspace: piece.session.workspace });
  }
  return { pieces, checkpoint: JSON.stringify(indexRun.checkpoint()) };
}

/** An index of many sessions: records by key, and each session's fields as the pieces last gave them. */
class MachineIndex extends RecordIndex {
  readonly sessions = new Map<string, { title: string | null; workspace: string | null }>();

  override current(): Map<string, IndexRecord> {
    return new Map(
      [...this.records].map(([key, record]) => [key, { ...record, ...this.sessions.get(record.sessionId) }]),
    );
  }
}

/** `records()` of every given session directory, by key. */
async function wholeOf(...dirs: string[]): Promise<Map<string, IndexRecord>> {
  const all = new Map<string, IndexRecord>();
  for (const dir of dirs) for await (const record of (await openSession(dir)).records()) all.set(record.key, record);
  return all;
}

const sorted = (records: Map<string, IndexRecord>) =>
  [...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('indexSince: every session under the roots since one checkpoint', () => {
  for (const name of FIXTURE_NAMES) {
    it(`${name}: a first run gives records() of every session, a second nothing, under a small checkpoint`, async () => {
      const source = fixture(name);
      const index = new MachineIndex();
      const first = await run(source.root, index);
      expect(first.pieces.filter((piece) => piece.problem)).toEqual([]);
      const dirs = [...new Set(first.pieces.map((piece) => piece.session.path))];
      expect(dirs).toContain(source.dir);
      expect(sorted(index.current())).toEqual(sorted(await wholeOf(...dirs)));
      // An entry per session of some 1 KB: a short session's cursor.
      expect(first.checkpoint.length).toBeLessThan(dirs.length * 2048);
      const second = await run(source.root, index, first.checkpoint);
      expect(second.pieces).toEqual([]);
      expect(JSON.parse(second.checkpoint)).toEqual(JSON.parse(first.checkpoint));
    });
  }

  it('a log that grows between runs gives only what was appended, and the index stays records() of the whole', async () => {
    const { root, dir } = await rootCopy('tool-calls');
    const whole = await readFile(logOf(dir));
    const ends = (await framesOf(dir)).map((frame) => frame.offset + frame.bytes);
    const index = new MachineIndex();
    let checkpoint: string | undefined;
    for (const cut of [ends[Math.floor(ends.length / 3)]!, ends[Math.floor((2 * ends.length) / 3)]!, whole.length]) {
      await writeFile(logOf(dir), whole.subarray(0, cut));
      ({ checkpoint } = await run(root, index, checkpoint));
      expect(sorted(index.current()), `log cut at ${cut}`).toEqual(sorted(await wholeOf(dir)));
    }
  });

  it('a damaged session is a piece with its code, after what precedes the damage; the other session is indexed', async () => {
    const { root, dir } = await rootCopy('titled');
    const sessions = join(dir, '..');
    const other = (await run(fixture('titled').root, new MachineIndex())).pieces
      .map((piece) => piece.session.path)
      .find((path) => path !== fixture('titled').dir)!;
    const damaged = join(sessions, other.split('/').at(-1)!);
    const frames = await framesOf(damaged);
    const middle = frames[Math.floor(frames.length / 2)]!;
    await editLog(damaged, (log) => {
      log[middle.offset + middle.bytes - 2]! ^= 0xff;
      return log;
    });
    const refusal = (await (await openSession(damaged)).read()).refusal;
    expect(refusal).toBeDefined();
    const index = new MachineIndex();
    const { pieces, checkpoint } = await run(root, index);
    const problems = pieces.filter((piece) => piece.problem);
    expect(problems.map((piece) => [piece.session.path, piece.problem!.code])).toEqual([[damaged, refusal!.code]]);
    expect(problems[0]!.problem!.message.length).toBeGreaterThan(0);
    // Its status is the verdict read() gives; the pieces before the damage said the status the batches gave.
    expect(problems[0]!.session.status).toBe((await (await openSession(damaged)).read()).status);
    expect(pieces.filter((piece) => !piece.problem).every((piece) => piece.session.status === 'ok')).toBe(true);
    // The good session whole; the damaged one up to its damage, as records() gives it before it throws.
    const good = [...index.current()].filter(([, record]) => record.sessionId !== damaged.split('/').at(-1));
    expect(sorted(new Map(good))).toEqual(sorted(await wholeOf(dir)));
    // The next run meets the same problem, and gives nothing else.
    const again = await run(root, index, checkpoint);
    expect(again.pieces.map((piece) => [piece.records.length, piece.problem?.code])).toEqual([[0, refusal!.code]]);
  });

  it('a session removed, or a log rewritten under its cursor, is taken out of the index by its key', async () => {
    const { root, dir } = await rootCopy('titled');
    const index = new MachineIndex();
    const first = await run(root, index);
    const other = first.pieces.map((piece) => piece.session.path).find((path) => path !== dir)!;
    const otherId = other.split('/').at(-1)!;
    await rm(join(dir, '..', otherId), { recursive: true });
    // The fork's log replaced by a shorter one: its cursor no longer fits, and it is read again from the start.
    const ends = (await framesOf(dir)).map((frame) => frame.offset + frame.bytes);
    await writeFile(logOf(dir), (await readFile(logOf(dir))).subarray(0, ends[Math.floor(ends.length / 2)]));
    const second = await run(root, index, first.checkpoint);
    expect(second.pieces[0]).toMatchObject({ session: { id: otherId }, records: [{ type: 'removed', key: otherId }] });
    expect(second.pieces.find((piece) => piece.session.path === dir)?.records[0]).toMatchObject({
      type: 'removed',
      key: dir.split('/').at(-1),
    });
    expect(sorted(index.current())).toEqual(sorted(await wholeOf(dir)));
    expect((JSON.parse(second.checkpoint) as IndexCheckpoint).sessions.map((entry) => entry.path)).toEqual([dir]);
  });

  it('a checkpoint taken after the run holds the logs as they were read, whatever happened to them since', async () => {
    const { root, dir } = await rootCopy('titled');
    const { inputs, roots } = await machineRoots({ stateHome: root, env: {}, homeDir: root });
    const indexRun = indexSince(roots.roots, { platform: inputs.platform });
    const index = new MachineIndex();
    for await (const piece of indexRun) index.apply(piece.records);
    const read = await readFile(logOf(dir));
    // The log rewritten in place, the same size, after the run read it: its first bytes changed.
    await writeFile(logOf(dir), Buffer.concat([Buffer.from('XXXX'), read.subarray(4)]));
    const checkpoint = JSON.stringify(indexRun.checkpoint());
    await writeFile(logOf(dir), read);
    // Put back as it was read, it is unchanged against the checkpoint: no record to give, none removed.
    expect((await run(root, index, checkpoint)).pieces.flatMap((piece) => piece.records)).toEqual([]);
    // And a session removed after the run does not keep the checkpoint from being taken.
    await rm(dir, { recursive: true });
    expect(() => indexRun.checkpoint()).not.toThrow();
  });

  it('a state root that is not there (a disk not mounted) keeps its sessions, each said with a problem', async () => {
    const { root } = await rootCopy('titled');
    const index = new MachineIndex();
    const first = await run(root, index);
    // The records, as applied: a problem piece gives no title or workspace, which an indexer keeps from before.
    const before = sorted(new Map(index.records));
    await rename(root, `${root}.away`);
    const away = await run(root, index, first.checkpoint);
    expect(away.pieces.map((piece) => piece.session.path).sort()).toEqual(
      [...new Set(first.pieces.map((piece) => piece.session.path))].sort(),
    );
    for (const piece of away.pieces) {
      expect(piece.records).toEqual([]);
      expect(piece.problem).toMatchObject({ code: 'RX_FILE_SYSTEM', file: root });
    }
    expect(sorted(new Map(index.records))).toEqual(before);
    expect(JSON.parse(away.checkpoint)).toEqual(JSON.parse(first.checkpoint));
    // Back in its place, nothing changed: nothing to give.
    await rename(`${root}.away`, root);
    expect((await run(root, index, away.checkpoint)).pieces).toEqual([]);
  });

  it('a folder of the root linked to a disk not mounted (a link to nothing) keeps its sessions the same way', async () => {
    const { root } = await rootCopy('titled');
    const projects = join(root, 'projects');
    await rename(projects, `${root}.disk`);
    await symlink(`${root}.disk`, projects);
    const index = new MachineIndex();
    const first = await run(root, index);
    const before = sorted(new Map(index.records));
    await rename(`${root}.disk`, `${root}.unmounted`);
    const away = await run(root, index, first.checkpoint);
    expect(away.pieces.length).toBeGreaterThan(0);
    for (const piece of away.pieces) expect(piece.problem).toMatchObject({ code: 'RX_FILE_SYSTEM', file: projects });
    expect(sorted(new Map(index.records))).toEqual(before);
    expect(JSON.parse(away.checkpoint)).toEqual(JSON.parse(first.checkpoint));
  });

  it('a transcript is read whole when it changes, and taken out when its migrated session stands for it', async () => {
    const { root, dir } = await rootCopy('jsonl-migrated');
    const store = join(dir, '..');
    const kept = join(await tempDir('rxstore-index-kept-'), 'sessions-v4');
    await cp(store, kept, { recursive: true });
    await rm(store, { recursive: true });
    const transcript = join(root, fixture('jsonl-migrated').sessionDir, '..', '..', 'sessions', 'legacy-demo.jsonl');
    const index = new MachineIndex();
    const first = await run(root, index);
    expect(first.pieces.map((piece) => [piece.session.store, piece.session.path])).toEqual([['jsonl', transcript]]);
    expect(sorted(index.current())).toEqual(sorted(await wholeOf(transcript)));
    expect((await run(root, index, first.checkpoint)).pieces).toEqual([]);
    // Reasonix migrates it: the log copy stands for the conversation, and the transcript's records go.
    await cp(kept, store, { recursive: true });
    const second = await run(root, index, first.checkpoint);
    expect(second.pieces[0]!.records).toEqual([{ type: 'removed', key: 'legacy-demo', sessionId: 'legacy-demo' }]);
    expect(sorted(index.current())).toEqual(sorted(await wholeOf(dir)));
  });

  it('refuses a checkpoint it did not make, with a code', async () => {
    const { inputs, roots } = await machineRoots({
      stateHome: fixture('plain-chat').root,
      env: {},
      homeDir: fixture('plain-chat').root,
    });
    for (const checkpoint of [
      { version: 2, sessions: [] },
      { version: 1, sessions: [{ path: 'x', id: 'y', store: 'sessions-v4', cursor: { version: 2 } }] },
      'checkpoint',
    ]) {
      expect(() => indexSince(roots.roots, { platform: inputs.platform, checkpoint })).toThrow(CursorMismatchError);
    }
  });
});
