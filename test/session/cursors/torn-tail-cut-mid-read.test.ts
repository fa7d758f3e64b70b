// A torn tail cut while a read since a cursor is in it (a repair; Reasonix's own when it opens the session):
// nothing that was given is gone, so the read ends where the log now does, with no error, and a follower
// reads on. A cut behind a batch already given is still an error. A whole read of the session (`readSession`)
// has given nothing yet: it reads the log as it now is, once more. The cut is made in process, at the moment
// that tells: when the read, having reached the end of the bytes, asks the log's size again.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogCutWhileReadError } from '../../../src/errors/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { batchesSince, readSince } from '../../../src/session/cursors/read-since.js';
import { openSession } from '../../../src/store/open-session.js';
import { drain } from '../../support/drain.js';
import { copySession, cutLog, endFrames, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

// Each size the log is cut to, in turn, one a descriptor (each read opens its own).
const cut = vi.hoisted(() => ({
  path: undefined as string | undefined,
  to: [] as number[],
  made: 0,
  atSecondCheck(fs: typeof import('node:fs')) {
    if (this.made < this.to.length) fs.truncateSync(this.path!, this.to[this.made++]!);
    return undefined;
  },
}));

vi.mock('node:fs', async (importOriginal) =>
  (await import('../../support/faults/size-check-cut.js')).withSizeCheckCut(await importOriginal(), cut),
);

afterEach(() => Object.assign(cut, { path: undefined, to: [], made: 0 }));

const source = fixture('plain-chat');

/** A copy whose last batch is cut short (a torn tail), its reading, and a cursor at each batch's end. */
async function tornCopy() {
  const dir = await copySession(source.dir);
  await cutLog(dir, 7);
  const torn = await readSession(dir);
  expect(torn.status).toBe('torn-tail');
  const { batches, cursor } = await readSince(dir, torn.id);
  return { dir, id: torn.id, durableEnd: torn.tornTail!.offset, batches, last: cursor };
}

describe('a read since a cursor while the log is cut', () => {
  it('at the end of its last batch (its torn tail cut): nothing new, no error', async () => {
    const { dir, id, durableEnd, last } = await tornCopy();
    Object.assign(cut, { path: logOf(dir), to: [durableEnd] });
    expect((await readSince(dir, id, last)).batches).toEqual([]);
    expect(cut.made).toBe(1);
    expect((await readSession(dir)).status).toBe('ok');
  });

  it('from an earlier cursor: the batches after it, all of them, then the end, no error', async () => {
    const { dir, id, durableEnd, batches } = await tornCopy();
    const from = (await readSince(dir, id, undefined, { maxBatches: 2 })).cursor;
    Object.assign(cut, { path: logOf(dir), to: [durableEnd] });
    const read = await readSince(dir, id, from);
    expect(cut.made).toBe(1);
    expect(read.batches.map((batch) => batch.batch.offset)).toEqual(
      batches.slice(2).map((batch) => batch.batch.offset),
    );
    expect(read.cursor.offset).toBe(durableEnd);
  });

  it('behind a batch it gave: the error that says so', async () => {
    const { dir, id } = await tornCopy();
    const ends = await endFrames(dir);
    // Cut inside the last committed batch, after the read has given it.
    Object.assign(cut, { path: logOf(dir), to: [ends.at(-1)!.offset] });
    const given: number[] = [];
    const error = await (async () => {
      for await (const item of batchesSince(dir, id)) given.push(item.batch.batch.end);
    })().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(cut.made).toBe(1);
    expect(given.at(-1)).toBeGreaterThan(ends.at(-1)!.offset);
    expect(error).toBeInstanceOf(LogCutWhileReadError);
    expect(error).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { file: logOf(dir), offset: ends.at(-1)!.offset } });
  });
});

describe('a whole read of the session while the log is cut', () => {
  it('its torn tail cut (a repair): the session as it now is, whole, with no torn tail', async () => {
    const { dir, durableEnd, batches } = await tornCopy();
    Object.assign(cut, { path: logOf(dir), to: [durableEnd] });
    const read = await readSession(dir);
    expect(cut.made).toBe(1);
    expect(read).toMatchObject({ status: 'ok', tornTail: null, batches: batches.length, durableEnd });
    // A copy's caches are stale (a note); nothing is wrong with the session.
    expect(read.problems.filter((problem) => problem.severity !== 'note')).toEqual([]);
  });

  it('cut inside its last batch: the session as it now is, that batch a torn tail', async () => {
    const { dir, batches } = await tornCopy();
    const ends = await endFrames(dir);
    const to = ends.at(-1)!.offset;
    Object.assign(cut, { path: logOf(dir), to: [to] });
    const read = await readSession(dir);
    expect(cut.made).toBe(1);
    expect(read).toMatchObject({
      status: 'torn-tail',
      batches: batches.length - 1,
      durableEnd: batches.at(-2)!.batch.end,
    });
    expect(read.tornTail).toMatchObject({ offset: batches.at(-2)!.batch.end, bytes: to - batches.at(-2)!.batch.end });
  });

  it('cut again while it is read again: the error that says so', async () => {
    const { dir, durableEnd } = await tornCopy();
    const ends = await endFrames(dir);
    Object.assign(cut, { path: logOf(dir), to: [durableEnd, ends.at(-1)!.offset] });
    const read = await readSession(dir);
    expect(cut.made).toBe(2);
    expect(read.status).toBe('damaged');
    expect(read.refusal).toBeInstanceOf(LogCutWhileReadError);
    expect(read.refusal).toMatchObject({
      code: 'RX_DAMAGED_STORE',
      data: { file: logOf(dir), offset: ends.at(-1)!.offset },
    });
  });
});

describe('every batch of the log, from an opened session, while the log is cut', () => {
  /** `events()` drained: the offsets of the batches it gave, and what it threw. */
  async function drained(dir: string) {
    const session = await openSession(dir);
    if (session.format !== 'v4') throw new Error('a sessions-v4 copy');
    const { items, error } = await drain(session.events());
    return { offsets: items.map((batch) => batch.batch.offset), error };
  }

  it('its torn tail cut: every batch, then the end, no error', async () => {
    const { dir, durableEnd, batches } = await tornCopy();
    Object.assign(cut, { path: logOf(dir), to: [durableEnd] });
    const read = await drained(dir);
    expect(cut.made).toBe(1);
    expect(read).toEqual({ offsets: batches.map((batch) => batch.batch.offset), error: undefined });
  });

  it('cut behind a batch it gave: the error that says so, after what was given', async () => {
    const { dir } = await tornCopy();
    const ends = await endFrames(dir);
    Object.assign(cut, { path: logOf(dir), to: [ends.at(-1)!.offset] });
    const read = await drained(dir);
    expect(cut.made).toBe(1);
    expect(read.error).toBeInstanceOf(LogCutWhileReadError);
    expect(read.error).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { offset: ends.at(-1)!.offset } });
  });
});
