// A log replaced while a read since a cursor is under way: the cursor was checked first, so the
// read must check it again before it blames what follows on damage. The replacement is made in
// process at the one moment it matters (after the check, before the first batch is read), by
// wrapping the step between them.
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CursorMismatchError, DamagedStoreError, openLogSession } from '../../../src/index.js';
import { CursorMaker } from '../../../src/session/cursors/cursor.js';
import { copySession, endFrames, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `replace` once, just before the read opens the log past the checked cursor. */
function replaceAfterTheCheck(replace: () => Promise<void>) {
  const open = CursorMaker.open.bind(CursorMaker);
  vi.spyOn(CursorMaker, 'open').mockImplementationOnce(async (...args: Parameters<typeof CursorMaker.open>) => {
    await replace();
    return open(...args);
  });
}

/** A copy of a session Reasonix wrote, a cursor after its first two batches, and where its batches end. */
async function afterTwoBatches() {
  const dir = await copySession(fixture('tool-calls').dir);
  const session = await openLogSession(dir);
  const { cursor } = await session.readSince(undefined, { maxBatches: 2 });
  return { dir, session, cursor, ends: await endFrames(dir) };
}

describe('a log replaced between the cursor check and the read', () => {
  it('is a cursor that no longer fits (CursorMismatchError), not damage after it', async () => {
    const { dir, session, cursor, ends } = await afterTwoBatches();
    // The replacement differs in the first batch (so the cursor no longer fits) and in the one after the cursor (so reading it fails).
    replaceAfterTheCheck(async () => {
      const log = await readFile(logOf(dir));
      log[ends[0]!.offset - 1]! ^= 0x01;
      log[ends[2]!.offset - 1]! ^= 0x01;
      await writeFile(logOf(dir), log);
    });
    const read = session.readSince(cursor).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(await read).toBeInstanceOf(CursorMismatchError);
  });

  it('that still fits the cursor: the damage after it is the answer', async () => {
    const { dir, session, cursor, ends } = await afterTwoBatches();
    replaceAfterTheCheck(async () => {
      const log = await readFile(logOf(dir));
      log[ends[2]!.offset - 1]! ^= 0x01;
      await writeFile(logOf(dir), log);
    });
    await expect(session.readSince(cursor)).rejects.toBeInstanceOf(DamagedStoreError);
  });
});
