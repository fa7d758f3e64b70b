// Cursors at the edges of a log: an empty log, offset 0, and offsets that stand right after a
// well-formed frame that is not a whole batch/end record (bytes only a batch boundary check can tell).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorMismatchError } from '../../../src/errors/index.js';
import { checkCursor, cursorAt, type Cursor } from '../../../src/session/cursors/cursor.js';
import { fileStamp } from '../../../src/fs/files-stamp.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { batchesSince, readSince } from '../../../src/session/cursors/read-since.js';
import {
  copySession,
  endFrames,
  framesOf,
  insertRawFrame,
  logOf,
  replaceFrame,
  storedFrame,
} from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';
import { createSession } from '../../../src/session/writing/create-session.js';

const source = fixture('plain-chat');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A cursor at `offset` with the digests of the bytes before it, as one made there would carry them. */
async function cursorOver(dir: string, offset: number, nextSequence: number): Promise<Cursor> {
  const log = await readFile(logOf(dir));
  return {
    version: 1,
    sessionId: source.id,
    offset,
    nextSequence,
    writerGeneration: 1,
    prefixDigest: offset === 0 ? null : sha(log.subarray(0, Math.min(64, offset))),
    anchorDigest: offset === 0 ? null : sha(log.subarray(Math.max(0, offset - 4096), offset)),
  };
}

async function refusal(read: Promise<unknown>): Promise<CursorMismatchError> {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CursorMismatchError);
  return error as CursorMismatchError;
}

/** The descriptors this process has open: a reader that stops early must leave none behind. */
const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('reading since a cursor, stopped early', () => {
  it.skipIf(process.platform !== 'linux')(
    'a consumer that breaks off, maxBatches, and damage each leave no file open',
    async () => {
      const dir = await copySession(source.dir);
      const before = openDescriptors();
      for await (const _ of batchesSince(dir, source.id)) break;
      expect(openDescriptors()).toBe(before);
      expect((await readSince(dir, source.id, undefined, { maxBatches: 1 })).batches).toHaveLength(1);
      expect(openDescriptors()).toBe(before);
      // Damage in the first batch, read without a cursor: the codec's error, never a cursor's.
      const damaged = await copySession(source.dir);
      const log = await readFile(logOf(damaged));
      log[10]! ^= 0xff;
      await writeFile(logOf(damaged), log);
      const error = await readSince(damaged, source.id).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).not.toBeInstanceOf(CursorMismatchError);
      expect(error).toMatchObject({ data: { file: logOf(damaged), offset: 0 } });
      expect(openDescriptors()).toBe(before);
      // Making and checking cursors, and a whole read with its caches, close what they open too.
      const { cursor } = await readSince(dir, source.id, undefined, { maxBatches: 2 });
      await cursorAt(dir, source.id, { offset: cursor.offset, nextSequence: cursor.nextSequence, writerGeneration: 1 });
      await checkCursor(dir, source.id, cursor);
      await readSession(dir);
      expect(openDescriptors()).toBe(before);
    },
  );
});

/** What a stat of the log says now, as a cursor made where the log ends keeps it. */
const stampOf = (dir: string) => fileStamp(statSync(logOf(dir), { bigint: true }));

describe('a cursor', () => {
  it('of an empty log is at offset 0, sequence 1, with no digests; it fits the log and finds nothing after it', async () => {
    const dir = await copySession(source.dir);
    await writeFile(logOf(dir), Buffer.alloc(0));
    const { batches, cursor } = await readSince(dir, source.id);
    expect(batches).toEqual([]);
    expect(cursor).toEqual({
      version: 1,
      sessionId: source.id,
      offset: 0,
      nextSequence: 1,
      writerGeneration: 0,
      prefixDigest: null,
      anchorDigest: null,
      logStamp: stampOf(dir),
    });
    expect(await readSince(dir, source.id, cursor)).toEqual({ batches: [], cursor });
    expect(await checkCursor(dir, source.id, cursor)).toEqual(cursor);
  });

  it('at offset 0 of a log reads it all; one that claims another sequence there is refused, naming why', async () => {
    const dir = await copySession(source.dir);
    const start = await cursorOver(dir, 0, 1);
    const whole = await readSince(dir, source.id);
    const fromStart = await readSince(dir, source.id, start);
    expect(fromStart.batches.map((batch) => batch.batch.commitId)).toEqual(
      whole.batches.map((batch) => batch.batch.commitId),
    );
    expect(fromStart.cursor).toEqual(whole.cursor);
    const error = await refusal(readSince(dir, source.id, { ...start, nextSequence: 2 }));
    expect(error.message).toBe(
      'the cursor does not fit this log: the log does not continue at sequence 2 there (a log starts at sequence 1); read the session again from the start',
    );
    expect(error.data).toMatchObject({ file: logOf(dir), offset: 0, sequence: 2 });
  });

  it('a cursor made at a boundary has the digests of the 64 first bytes and the 4096 before it, and at the end the stamp of the log', async () => {
    const dir = await copySession(source.dir);
    const ends = await endFrames(dir);
    const log = await readFile(logOf(dir));
    for (const frame of [ends[0]!, ends.at(-1)!]) {
      const offset = frame.offset + frame.bytes;
      const record = frame.record as unknown as { firstSeq: number; eventCount: number };
      const cursor = await cursorAt(dir, source.id, {
        offset,
        nextSequence: record.firstSeq + record.eventCount,
        writerGeneration: 1,
      });
      expect(cursor).toEqual({
        version: 1,
        sessionId: source.id,
        offset,
        nextSequence: record.firstSeq + record.eventCount,
        writerGeneration: 1,
        prefixDigest: sha(log.subarray(0, 64)),
        anchorDigest: sha(log.subarray(Math.max(0, offset - 4096), offset)),
        ...(offset === log.length ? { logStamp: stampOf(dir) } : {}),
      });
      expect(await checkCursor(dir, source.id, JSON.parse(JSON.stringify(cursor)))).toEqual(cursor);
    }
  });

  it("right after the log's first frame (a batch/begin) is not at a batch boundary", async () => {
    const dir = await copySession(source.dir);
    const [first] = await framesOf(dir);
    expect(first!.record.recordType).toBe('batch/begin');
    const cursor = await cursorOver(dir, first!.bytes, 2);
    expect((await refusal(readSince(dir, source.id, cursor))).message).toContain(
      `offset ${first!.bytes} is not a batch boundary`,
    );
  });

  it('that is not one names the log it was given for; one at a sequence the log does not continue at names where the batch before it ends', async () => {
    const dir = await copySession(source.dir);
    expect((await refusal(readSince(dir, source.id, 'not a cursor'))).data).toEqual({ file: logOf(dir) });
    const { cursor } = await readSince(dir, source.id, undefined, { maxBatches: 2 });
    const error = await refusal(readSince(dir, source.id, { ...cursor, nextSequence: cursor.nextSequence + 2 }));
    expect(error.message).toBe(
      `the cursor does not fit this log: the log does not continue at sequence ${cursor.nextSequence + 2} there (the batch before the offset ends at sequence ${cursor.nextSequence - 1}); read the session again from the start`,
    );
  });

  it('of a session whose log is gone is the file system error naming the log, not a verdict on the cursor', async () => {
    const dir = await copySession(source.dir);
    const { cursor } = await readSince(dir, source.id, undefined, { maxBatches: 1 });
    await rm(logOf(dir));
    await expect(readSince(dir, source.id, cursor)).rejects.toMatchObject({
      code: 'RX_FILE_SYSTEM',
      data: { file: logOf(dir) },
    });
  });

  it('of a session whose log is now a directory (as long as the offset) is the file system error naming the log', async () => {
    const dir = await copySession(source.dir);
    const { cursor } = await readSince(dir, source.id, undefined, { maxBatches: 1 });
    await rm(logOf(dir));
    await mkdir(logOf(dir));
    // Entries enough that the directory's size reaches the offset: its bytes are then read, and the read fails.
    for (let entry = 0; entry < 200; entry += 1)
      await writeFile(join(logOf(dir), `entry-${String(entry).padStart(16, '0')}`), '');
    expect((await stat(logOf(dir))).size).toBeGreaterThanOrEqual(cursor.offset);
    await expect(checkCursor(dir, source.id, cursor)).rejects.toMatchObject({
      code: 'RX_FILE_SYSTEM',
      data: { file: logOf(dir) },
    });
  });

  it.each([
    ['a frame that is not JSON', Buffer.from('not json at all')],
    ['JSON that is not a record', Buffer.from(JSON.stringify({ note: 'no record type here' }))],
    ['JSON that is not an object', Buffer.from('null')],
    ['a record of another type', Buffer.from(JSON.stringify({ recordType: 'batch/event', schemaVersion: 4 }))],
    [
      'a batch/end record without its sequence',
      Buffer.from(JSON.stringify({ recordType: 'batch/end', schemaVersion: 4, eventCount: 1 })),
    ],
    [
      'a batch/end record without its event count',
      Buffer.from(JSON.stringify({ recordType: 'batch/end', schemaVersion: 4, firstSeq: 3 })),
    ],
    [
      'a batch/end record of another shape',
      Buffer.from(JSON.stringify({ recordType: 'batch/end', schemaVersion: 4, firstSeq: 'three', eventCount: 1 })),
    ],
  ])('right after %s is not at a batch boundary', async (_, raw) => {
    const dir = await copySession(source.dir);
    const third = (await endFrames(dir))[2]!;
    const boundary = third.offset + third.bytes;
    const before = (await readFile(logOf(dir))).length;
    await insertRawFrame(dir, boundary, raw);
    const offset = boundary + (await readFile(logOf(dir))).length - before;
    const record = third.record as unknown as { firstSeq: number; eventCount: number };
    const cursor = await cursorOver(dir, offset, record.firstSeq + record.eventCount);
    const error = await refusal(readSince(dir, source.id, cursor));
    expect(error.message).toBe(
      `the cursor does not fit this log: offset ${offset} is not a batch boundary: the bytes before it do not end a batch/end frame; read the session again from the start`,
    );
    // The boundary before the inserted frame still fits, and what follows it is damage, as a whole read says.
    const fits = await cursorOver(dir, boundary, record.firstSeq + record.eventCount);
    const items: unknown[] = [];
    const damage = await (async () => {
      for await (const item of batchesSince(dir, source.id, fits)) items.push(item);
    })().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(items).toEqual([]);
    expect(damage).not.toBeInstanceOf(CursorMismatchError);
    expect(damage).toMatchObject({ data: { file: logOf(dir), offset: boundary } });
  });
});

describe('a batch boundary', () => {
  it('is found when the batch/end frame holds the frame magic in its own bytes (a commit id that spells it, stored uncompressed)', async () => {
    const storeDir = await tempDir();
    const batch = {
      operationId: 'op-1',
      commitId: 'commit-RX4F-1',
      events: [{ kind: 'message/complete', payload: { message: { role: 'user', id: 'm1', content: 'hello' } } }],
    };
    const created = await createSession({ storeDir, sessionId: 'magic-in-commit', batches: [batch] });
    const [end] = await endFrames(created.dir);
    await replaceFrame(created.dir, end!, storedFrame(end!.raw));
    const log = await readFile(logOf(created.dir));
    expect(log.indexOf('commit-RX4F-1', end!.offset)).toBeGreaterThan(end!.offset);
    expect((await readSession(created.dir, { caches: false })).status).toBe('ok');
    const { cursor } = await readSince(created.dir, created.id);
    expect(cursor).toMatchObject({ offset: log.length, nextSequence: 2 });
    expect(await checkCursor(created.dir, created.id, cursor)).toEqual(cursor);
    expect((await readSince(created.dir, created.id, cursor)).batches).toEqual([]);
  });

  it('is found when the batch/end frame ends in bytes that read as a frame header of their own', async () => {
    const storeDir = await tempDir();
    const batch = {
      operationId: 'op-1',
      events: [{ kind: 'message/complete', payload: { message: { role: 'user', id: 'm1', content: 'hello' } } }],
    };
    const created = await createSession({ storeDir, sessionId: 'frame-in-frame', batches: [batch] });
    const [end] = await endFrames(created.dir);
    // A frame header whose declared size ends exactly where the batch/end frame ends, over bytes that are not zstd.
    const inner = Buffer.concat([Buffer.from('RX4F'), Buffer.from([0, 0, 0, 8, 0, 0, 0, 8]), Buffer.from('garbage!')]);
    const skippable = Buffer.alloc(8);
    skippable.writeUInt32LE(0x184d2a50, 0);
    skippable.writeUInt32LE(inner.length, 4);
    await replaceFrame(created.dir, end!, storedFrame(end!.raw, Buffer.concat([skippable, inner])));
    expect((await readSession(created.dir, { caches: false })).status).toBe('ok');
    const { cursor } = await readSince(created.dir, created.id);
    expect(cursor.nextSequence).toBe(2);
    expect(await checkCursor(created.dir, created.id, cursor)).toEqual(cursor);
  });

  it('is found when the batch/end frame is the whole window the anchor digest covers (4096 bytes)', async () => {
    const storeDir = await tempDir();
    const message = (id: string) => [
      { kind: 'message/complete', payload: { message: { role: 'user', id, content: 'hello' } } },
    ];
    const make = async (sessionId: string, commitLength: number) => {
      const created = await createSession({
        storeDir,
        sessionId,
        batches: [
          { operationId: 'op-1', events: message('m1') },
          { operationId: 'op-2', commitId: 'c'.repeat(commitLength), events: message('m2') },
        ],
      });
      const end = (await endFrames(created.dir))[1]!;
      await replaceFrame(created.dir, end, storedFrame(end.raw));
      return { created, frameBytes: storedFrame(end.raw).length };
    };
    // The stored frame grows byte for byte with the commit id: sized to exactly 4096 bytes.
    const { frameBytes } = await make('measure', 3000);
    const { created } = await make('window-sized', 3000 + 4096 - frameBytes);
    const log = await readFile(logOf(created.dir));
    const end = (await endFrames(created.dir))[1]!;
    expect([end.bytes, end.offset + end.bytes]).toEqual([4096, log.length]);
    expect(log.length).toBeGreaterThan(4096);
    const { cursor } = await readSince(created.dir, created.id);
    expect(cursor).toMatchObject({ offset: log.length, nextSequence: 3 });
    expect(await checkCursor(created.dir, created.id, cursor)).toEqual(cursor);
  });

  it('is not inside the first frame header: a cursor whose offset cuts it is refused as one', async () => {
    const dir = await copySession(source.dir);
    const error = await refusal(checkCursor(dir, source.id, await cursorOver(dir, 8, 1)));
    expect(error.message).toMatch(/offset 8 is not a batch boundary/);
  });
});

describe('reading since a cursor, of a session with a warning', () => {
  it('a draft copy (no storageRevision: Reasonix imports it) is read like any other: a warning refuses nothing', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const manifestPath = join(dir, 'manifest.json');
    const { storageRevision: _, ...manifest } = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(manifestPath, JSON.stringify(manifest));
    expect((await readSession(dir)).problems.map((problem) => [problem.code, problem.severity])).toContainEqual([
      'RX_UNPUBLISHED_DRAFT',
      'warning',
    ]);
    const since = await readSince(dir, fixture('plain-chat').id);
    expect(since.batches.length).toBe((await endFrames(dir)).length);
  });
});

describe('the log a cursor is made from', () => {
  it('a FIFO standing as the log is refused with the file named, never waited on', async () => {
    const dir = await copySession(source.dir);
    const log = join(dir, 'events.frames');
    await rm(log);
    execFileSync('mkfifo', [log]);
    // Opened without O_NONBLOCK, a FIFO with no writer never opens: the read hangs and the test times out.
    await expect(cursorAt(dir, source.id, { offset: 0, nextSequence: 1, writerGeneration: 0 })).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      data: { file: log },
    });
  });

  it('a FIFO put in place of the log a cursor was taken from is refused on the next read, never waited on', async () => {
    const dir = await copySession(source.dir);
    const { cursor } = await readSince(dir, source.id);
    const log = join(dir, 'events.frames');
    await rm(log);
    execFileSync('mkfifo', [log]);
    // A wait here would hold the whole thread: an indexer's every other session, its timers and its signals.
    await expect(readSince(dir, source.id, cursor)).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      data: { file: log },
    });
    await expect(checkCursor(dir, source.id, cursor)).rejects.toMatchObject({ code: 'RX_NOT_REGULAR_FILE' });
  });
});
