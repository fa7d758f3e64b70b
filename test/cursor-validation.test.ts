// A cursor is checked before anything is read from it: each way it can fail to fit a log gives
// CursorMismatchError naming what differs, never batches from the wrong place.
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CursorMismatchError, openLogSession, type Cursor } from '../src/index.js';
import { copySession, logOf } from './support/faults.js';
import { fixture } from './support/fixtures.js';

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
    expect(cursor).toMatchObject({ version: 1, offset: batches[1]!.batch.end, nextSequence: batches[1]!.batch.firstSeq + batches[1]!.batch.eventCount });
    const next = await session.readSince(cursor, { maxBatches: 1 });
    expect(next.batches.map((batch) => batch.batch.offset)).toEqual([cursor.offset]);
    const whole = await session.readSince();
    expect((await session.readSince(cursor)).batches.map((batch) => batch.batch.commitId)).toEqual(whole.batches.slice(2).map((batch) => batch.batch.commitId));
    expect((await session.readSince(whole.cursor)).cursor).toEqual(whole.cursor);
  });

  it.each([
    { what: 'an empty object', value: {}, message: /^not a cursor rxstore made: version: / },
    { what: 'version 2', value: { version: 2 }, message: /^not a cursor rxstore made: version: / },
    { what: 'a string', value: 'cursor', message: /^not a cursor rxstore made: value: / },
  ])('that is $what is not a cursor', async ({ value, message }) => {
    const { session } = await afterTwoBatches();
    expect((await mismatch(session.readSince(value as unknown as Cursor))).message).toMatch(message);
  });

  it('from another session is refused by name', async () => {
    const { session, cursor } = await afterTwoBatches();
    const error = await mismatch(session.readSince({ ...cursor, sessionId: 'another' }));
    expect(error.message).toBe('the cursor does not fit this log: it was taken from session "another"; read the session again from the start');
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

  it('at a sequence the log does not continue at there', async () => {
    const { dir, session, cursor } = await afterTwoBatches();
    const error = await mismatch(session.readSince({ ...cursor, nextSequence: cursor.nextSequence + 1 }));
    expect(error.message).toMatch(new RegExp(`the log does not continue at sequence ${cursor.nextSequence + 1} there`));
    expect(error.data).toMatchObject({ file: logOf(dir), offset: cursor.offset, sequence: cursor.nextSequence + 1 });
  });
});
