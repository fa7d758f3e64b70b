// A log written in place under a caught-up cursor (a byte flipped mid-log, the size kept; a copy put
// back): the cursor's digests cover only the log's first bytes and those just before its offset,
// so its stamp of the log's file is what tells the read to verify the log again, once.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLogSession, type RecordsCursor } from '../../../src/index.js';
import { readSessionEvents } from '../../../src/session/reading/read-events.js';
import { copySession, flipInPlace, putBack } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { drain } from '../../support/drain.js';
import { runCliChild } from '../../support/cli-child.js';
import { followInBackground } from '../../support/follow-in-background.js';
import { followSession } from '../../../src/session/cursors/follow.js';
import { tempDir } from '../../support/temp-dir.js';

// Every read of a log's batches starts here: counted, to tell a caught-up read that reads no log from one that verifies it.
vi.mock('../../../src/session/reading/read-events.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/session/reading/read-events.js')>();
  return { ...original, readSessionEvents: vi.fn(original.readSessionEvents) };
});
const logReads = vi.mocked(readSessionEvents);

afterEach(() => {
  logReads.mockClear();
});

/** A copy of a session the real Reasonix wrote, read to its end, and the records cursor kept there (as stored JSON). */
async function caughtUp(name: 'tool-calls' | 'compacted') {
  const dir = await copySession(fixture(name).dir);
  const session = await openLogSession(dir);
  const pieces = await drain(session.recordsSince(undefined, { cursorAtEnd: true }));
  expect(pieces.error).toBeUndefined();
  const cursor = JSON.parse(JSON.stringify(pieces.items.at(-1)!.cursor)) as RecordsCursor;
  logReads.mockClear();
  return { dir, session, cursor };
}

/** What a read with no cursor stops with, after it has been checked that it does stop. */
async function noCursorRefusal(dir: string) {
  const { error } = await drain((await openLogSession(dir)).recordsSince());
  expect(error).toBeDefined();
  return error as Error & { code: string };
}

describe('a caught-up cursor on a log written in place', () => {
  it.each(['tool-calls', 'compacted'] as const)(
    '%s: a byte flipped mid-log is the coded error a read with no cursor gives',
    async (name) => {
      const { dir, session, cursor } = await caughtUp(name);
      expect(cursor.log.logStamp).toBeDefined();
      await flipInPlace(dir);
      const refusal = await noCursorRefusal(dir);
      const since = await drain(session.recordsSince(cursor, { cursorAtEnd: true }));
      expect(since.items).toEqual([]);
      expect(since.error).toMatchObject({ code: refusal.code, message: refusal.message });
      expect(since.error).toBeInstanceOf(refusal.constructor);
      // The log cursor's reads say the same.
      await expect(session.readSince(cursor.log)).rejects.toMatchObject({ code: refusal.code });
      expect((await drain(session.batchesSince(cursor.log))).error).toMatchObject({ code: refusal.code });
    },
  );

  it('a follower caught up at the end meets the damage as a read with no cursor does', async () => {
    const { dir, cursor } = await caughtUp('tool-calls');
    const follower = followInBackground((signal) =>
      followSession(dir, fixture('tool-calls').id, { cursor: cursor.log, signal, pollMs: 10, watch: false }),
    );
    await flipInPlace(dir);
    const refusal = await noCursorRefusal(dir);
    await expect(follower.done).rejects.toMatchObject({ code: refusal.code, message: refusal.message });
    expect(follower.seen).toEqual([]);
  });

  it('a byte-identical copy put back reads as caught up, and its new stamp spares the next read the log', async () => {
    const { dir, session, cursor } = await caughtUp('tool-calls');
    // Unchanged: a stat and the cursor's two small ranges, no read of the log's batches.
    expect((await drain(session.recordsSince(cursor, { cursorAtEnd: true }))).items).toEqual([]);
    expect(logReads).not.toHaveBeenCalled();

    await putBack(dir, await flipInPlace(dir));
    const since = await drain(session.recordsSince(cursor, { cursorAtEnd: true }));
    expect(since.error).toBeUndefined();
    // One piece, no records, and the cursor it carries is the one given but for the log's new stamp.
    expect(since.items.map((piece) => piece.records)).toEqual([[]]);
    const renewed = JSON.parse(JSON.stringify(since.items[0]!.cursor)) as RecordsCursor;
    expect(renewed.log.logStamp).not.toBe(cursor.log.logStamp);
    expect({ ...renewed, log: { ...renewed.log, logStamp: undefined } }).toEqual({
      ...cursor,
      log: { ...cursor.log, logStamp: undefined },
    });
    expect(logReads).toHaveBeenCalledTimes(1);
    logReads.mockClear();

    // The renewed cursor: a stat again. The old one verifies again, and still finds nothing new.
    expect((await drain(session.recordsSince(renewed, { cursorAtEnd: true }))).items).toEqual([]);
    expect(logReads).not.toHaveBeenCalled();
    expect((await drain(session.recordsSince(cursor))).items).toEqual([]);
    expect(logReads).toHaveBeenCalledTimes(1);

    // readSince gives the renewed log cursor back; the next read with it reads no log.
    logReads.mockClear();
    const read = await session.readSince(cursor.log);
    expect(read.batches).toEqual([]);
    expect(read.cursor.logStamp).toBe(renewed.log.logStamp);
    expect((await session.readSince(read.cursor)).batches).toEqual([]);
    expect(logReads).toHaveBeenCalledTimes(1);
  });

  it('a cursor made before stamps stays valid, and is caught up as before (unverified)', async () => {
    const { dir, session, cursor } = await caughtUp('tool-calls');
    const { logStamp: _, ...log } = cursor.log;
    const older = { ...cursor, log };
    await flipInPlace(dir);
    expect(await drain(session.recordsSince(older, { cursorAtEnd: true }))).toEqual({ items: [], error: undefined });
    expect(logReads).not.toHaveBeenCalled();
  });
});

describe('a caught-up cursor on a session whose manifest changed since', () => {
  const edits: [string, (manifest: string) => Promise<void>, string][] = [
    ['removed', (manifest) => rm(manifest), 'RX_MANIFEST_MISSING'],
    ['not JSON', (manifest) => writeFile(manifest, '{'), 'RX_MANIFEST_INVALID'],
    [
      "another session's",
      async (manifest) =>
        writeFile(
          manifest,
          (await readFile(manifest, 'utf8')).replace(/"sessionId":\s*"[^"]*"/, `"sessionId":"${'a'.repeat(32)}"`),
        ),
      'RX_MANIFEST_ID',
    ],
  ];
  it.each(edits)(
    '%s: the coded error a read with no cursor gives, from every read since the cursor',
    async (_, edit, code) => {
      const { dir, session, cursor } = await caughtUp('tool-calls');
      await edit(join(dir, 'manifest.json'));
      const refusal = await noCursorRefusal(dir);
      expect(refusal.code).toBe(code);
      const since = await drain(session.recordsSince(cursor, { cursorAtEnd: true }));
      expect(since.items).toEqual([]);
      expect(since.error).toMatchObject({ code });
      await expect(session.readSince(cursor.log)).rejects.toMatchObject({ code });
      expect((await drain(session.batchesSince(cursor.log))).error).toMatchObject({ code });
      // Judged from the manifest alone: no log was read to say it.
      expect(logReads).not.toHaveBeenCalled();
    },
  );
});

describe('rxstore cat --records --cursor FILE on a log written in place', () => {
  it('exits 1 with the code a read with no cursor gives; a copy put back prints nothing, exit 0', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const cursorFile = join(await tempDir('rxstore-inplace-'), 'tool-calls.cursor');
    const first = await runCliChild(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(first.code).toBe(0);
    const kept = await readFile(cursorFile, 'utf8');
    expect(JSON.parse(kept)).toMatchObject({ log: { logStamp: expect.any(String) } });
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(64 * 1024);

    const original = await flipInPlace(dir);
    const whole = await runCliChild(['cat', dir, '--records']);
    expect(whole.code).toBe(1);
    const code = /rxstore: (RX_[A-Z_]+):/.exec(whole.stderr)?.[1];
    expect(code, whole.stderr).toBeDefined();
    const since = await runCliChild(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(since.stdout).toBe('');
    expect(since.stderr).toContain(`rxstore: ${code}: `);
    expect(since.code).toBe(1);
    // The cursor kept is not moved by a read that met damage.
    expect(await readFile(cursorFile, 'utf8')).toBe(kept);

    await putBack(dir, original);
    const back = await runCliChild(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(back).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const renewed = JSON.parse(await readFile(cursorFile, 'utf8')) as RecordsCursor;
    expect(renewed.log.logStamp).not.toBe((JSON.parse(kept) as RecordsCursor).log.logStamp);
  });
});
