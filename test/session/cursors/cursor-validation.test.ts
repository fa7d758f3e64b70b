// A cursor is checked before anything is read from it: each way it can fail to fit a log gives
// CursorMismatchError naming what differs, never batches from the wrong place.
import { createHash } from 'node:crypto';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CursorMismatchError, DamagedStoreError, openLogSession, type Cursor } from '../../../src/index.js';
import { appendBatch, copySession, framesOf, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const source = fixture('tool-calls');

async function afterTwoBatches() {
  const dir = await copySession(source.dir);
  const session = await openLogSession(dir);
  const { batches, cursor } = await session.readSince(undefined, { maxBatches: 2 });
  return { dir, session, batches, cursor };
}

const mismatch = async (read: Promise<unknown>) => {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CursorMismatchError);
  return error as CursorMismatchError;
};

describe('a cursor', () => {
  it('gives what follows it, up to maxBatches, and a cursor after exactly those', async () => {
    const { session, batches, cursor } = await afterTwoBatches();
    expect(batches).toHaveLength(2);
    expect(cursor).toMatchObject({
      version: 1,
      offset: batches[1]!.batch.end,
      nextSequence: batches[1]!.batch.firstSeq + batches[1]!.batch.eventCount,
    });
    const next = await session.readSince(cursor, { maxBatches: 1 });
    expect(next.batches.map((batch) => batch.batch.offset)).toEqual([cursor.offset]);
    const whole = await session.readSince();
    expect((await session.readSince(cursor)).batches.map((batch) => batch.batch.commitId)).toEqual(
      whole.batches.slice(2).map((batch) => batch.batch.commitId),
    );
    expect((await session.readSince(whole.cursor)).cursor).toEqual(whole.cursor);
  });

  it.each([
    { what: 'an empty object', value: {}, message: /^not a log cursor rxstore made: version: / },
    { what: 'version 2', value: { version: 2 }, message: /^not a log cursor rxstore made: version: / },
    { what: 'a string', value: 'cursor', message: /^not a log cursor rxstore made: value: / },
    { what: 'null', value: null, message: /^not a log cursor rxstore made: value: / },
    {
      what: 'a records cursor',
      value: { version: 2, log: {}, waiting: [] },
      message:
        /^not a log cursor rxstore made: a records cursor \(recordsSince takes it; its `log` is the log cursor\)$/,
    },
  ])('that is $what is not a cursor', async ({ value, message }) => {
    const { session } = await afterTwoBatches();
    expect((await mismatch(session.readSince(value as unknown as Cursor))).message).toMatch(message);
  });

  it('from another session is refused by name', async () => {
    const { session, cursor } = await afterTwoBatches();
    const error = await mismatch(session.readSince({ ...cursor, sessionId: 'another' }));
    expect(error.message).toBe(
      'the cursor does not fit this log: it was taken from session "another"; read the session again from the start',
    );
  });

  it('past the end of a log that was cut', async () => {
    const { dir, session, cursor } = await afterTwoBatches();
    await truncate(logOf(dir), cursor.offset - 1);
    const error = await mismatch(session.readSince(cursor));
    expect(error.message).toContain(`the log is ${cursor.offset - 1} bytes, shorter than the cursor's offset`);
    expect(error.data).toMatchObject({ file: logOf(dir), offset: cursor.offset });
    // Exactly as long as the cursor's offset is not shorter.
    await writeFile(logOf(dir), (await readFile(source.dir + '/events.frames')).subarray(0, cursor.offset));
    expect((await session.readSince(cursor)).batches).toEqual([]);
  });

  it.each([
    { where: 'in the first bytes of the log', at: () => 20 },
    { where: 'just before the offset', at: (cursor: Cursor) => cursor.offset - 1 },
  ])('over bytes rewritten $where', async ({ at }) => {
    const { dir, session, cursor } = await afterTwoBatches();
    const log = await readFile(logOf(dir));
    log[at(cursor)]! ^= 0x01;
    await writeFile(logOf(dir), log);
    expect((await mismatch(session.readSince(cursor))).message).toContain('the bytes before the offset changed');
  });

  it('that fits, with a batch after it that skips sequences, meets damage in the log, not a mismatch of its own', async () => {
    const dir = await copySession(source.dir);
    const session = await openLogSession(dir);
    const { cursor } = await session.readSince();
    // A whole, checksummed batch appended after the end, whose first sequence leaves a gap.
    await appendBatch(dir, [{ kind: 'session/title', payload: { title: 'after a gap' } }], { skipSequences: 3 });
    const error = await session.readSince(cursor).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as DamagedStoreError).message).toContain(
      `invalid v4 batch boundary at sequence ${cursor.nextSequence}`,
    );
    // Read from the start, the log gives the same verdict at the same place.
    expect((await session.read()).refusal).toMatchObject({
      code: (error as DamagedStoreError).code,
      data: { offset: cursor.offset },
    });
  });

  it('at a sequence the log does not continue at there', async () => {
    const { dir, session, cursor } = await afterTwoBatches();
    const error = await mismatch(session.readSince({ ...cursor, nextSequence: cursor.nextSequence + 1 }));
    expect(error.message).toMatch(new RegExp(`the log does not continue at sequence ${cursor.nextSequence + 1} there`));
    expect(error.data).toMatchObject({ file: logOf(dir), offset: cursor.offset, sequence: cursor.nextSequence + 1 });
  });

  // A cursor moved off a batch boundary, with the digests of the bytes it now stands after (as a
  // cursor made there would carry them): the bytes before it are the log's own, unchanged, so only
  // the boundary check can tell. The answer is a mismatch naming the offset, not damage in the log.
  const movedTo = async (dir: string, cursor: Cursor, offset: number): Promise<Cursor> => {
    const log = await readFile(logOf(dir));
    const sha = (from: number, to: number) => createHash('sha256').update(log.subarray(from, to)).digest('hex');
    return {
      ...cursor,
      offset,
      prefixDigest: sha(0, Math.min(64, offset)),
      anchorDigest: sha(Math.max(0, offset - 4096), offset),
    };
  };

  it.each([
    { where: 'inside the batch/begin frame that follows it', at: (cursor: Cursor) => cursor.offset + 5 },
    { where: 'inside the batch/end frame before it', at: (cursor: Cursor) => cursor.offset - 3 },
    { where: "inside the header of the log's first frame", at: () => 5 },
  ])('moved $where is refused as not a batch boundary', async ({ at }) => {
    const { dir, session, cursor } = await afterTwoBatches();
    const moved = await movedTo(dir, cursor, at(cursor));
    const error = await mismatch(session.readSince(moved));
    expect(error.message).toBe(
      `the cursor does not fit this log: offset ${moved.offset} is not a batch boundary: the bytes before it do not end a batch/end frame; read the session again from the start`,
    );
    expect(error.data).toMatchObject({ file: logOf(dir), offset: moved.offset });
  });

  it('moved to a frame boundary inside a batch is refused as not a batch boundary', async () => {
    const { dir, session, cursor } = await afterTwoBatches();
    const event = (await framesOf(dir)).find(
      (frame) => frame.offset > cursor.offset && frame.record.recordType === 'batch/event',
    )!;
    const moved = await movedTo(dir, cursor, event.offset);
    expect((await mismatch(session.readSince(moved))).message).toContain(
      `offset ${event.offset} is not a batch boundary`,
    );
  });

  it('at a boundary with damage right after it gives the damage, not a mismatch', async () => {
    const { dir, session, cursor } = await afterTwoBatches();
    const log = await readFile(logOf(dir));
    log[cursor.offset]! ^= 0xff;
    await writeFile(logOf(dir), log);
    const error = await session.readSince(cursor).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as DamagedStoreError).data).toMatchObject({
      file: logOf(dir),
      offset: cursor.offset,
      expected: 'RX4F',
    });
  });

  it('at the end of the log, and at every batch boundary, is accepted', async () => {
    const dir = await copySession(source.dir);
    const session = await openLogSession(dir);
    const seen: number[] = [];
    let cursor: Cursor | undefined;
    for (;;) {
      const next = await session.readSince(cursor, { maxBatches: 1 });
      if (next.batches.length === 0) break;
      seen.push(next.cursor.offset);
      cursor = next.cursor;
    }
    expect(seen).toEqual(
      (await framesOf(dir))
        .filter((frame) => frame.record.recordType === 'batch/end')
        .map((frame) => frame.offset + frame.bytes),
    );
    expect(seen.at(-1)).toBe((await readFile(logOf(dir))).length);
  });
});
