// A batch appended after a cursor that uses an earlier batch's operation id with other events is
// refused by a whole read (`conflicting operation`, as Reasonix refuses it: the codec's rules and
// reasonix-decode-rules judge that). Every read that goes on from a cursor — readSince, recordsSince,
// the summary cache's resume point behind `ls`, the search index — must refuse it too, never take it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError } from '../../../src/errors/index.js';
import { readSince } from '../../../src/session/cursors/read-since.js';
import { recordsSince, type RecordsSince } from '../../../src/session/cursors/records-since.js';
import { OperationsSeen } from '../../../src/session/cursors/operations-seen.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession, framesOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const tools = fixture('tool-calls');

const aTitle = (title: string) => [{ kind: 'session/title', payload: { title } }];

async function operationIds(dir: string): Promise<string[]> {
  return (await framesOf(dir))
    .filter((frame) => frame.record.recordType === 'batch/begin')
    .map((frame) => frame.record.operationId as string);
}

async function drain(items: AsyncIterable<RecordsSince>): Promise<RecordsSince[]> {
  const seen: RecordsSince[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

/** What a whole read says of the session now: its refusal's message. */
async function wholeRefusal(dir: string): Promise<string | undefined> {
  return (await readSession(dir)).refusal?.message;
}

describe('an operation id used again after a cursor', () => {
  // `session-create` holds no number; `runtime:<turn>:3:0` does, below the greatest one seen.
  it.each([
    ['one without a number (session-create)', 0],
    ['one numbered below the greatest seen (runtime:…:3:0)', 1],
    ['the last one before the cursor (turn-finalize:…)', -1],
  ])('%s: readSince and recordsSince refuse it as the whole read does', async (_, which) => {
    const dir = await copySession(tools.dir);
    const ids = await operationIds(dir);
    const reused = ids.at(which)!;
    const { cursor } = await readSince(dir, tools.id);
    const pieces = await drain(recordsSince(dir, tools.id, { workspace: null }, undefined, { cursorAtEnd: true }));
    const recordsCursor = pieces.at(-1)!.cursor;
    expect(cursor.operations).toBeDefined();

    await appendBatch(dir, aTitle('taken again'), { operationId: reused });
    const expected = `conflicting operation ${JSON.stringify(reused)}`;
    expect(await wholeRefusal(dir)).toBe(expected);
    const since = await readSince(dir, tools.id, cursor).catch((error: unknown) => error);
    expect(since).toBeInstanceOf(DamagedStoreError);
    expect((since as Error).message).toBe(expected);
    const records = await drain(recordsSince(dir, tools.id, { workspace: null }, recordsCursor)).catch(
      (error: unknown) => error,
    );
    expect(records).toBeInstanceOf(DamagedStoreError);
    expect((records as Error).message).toBe(expected);
  });

  it('a new id after the cursor reads on, and the cursor after it carries it', async () => {
    const dir = await copySession(tools.dir);
    const { cursor } = await readSince(dir, tools.id);
    await appendBatch(dir, aTitle('first'), { operationId: 'rxstore-test:new' });
    const read = await readSince(dir, tools.id, cursor);
    expect(read.batches.map((batch) => batch.batch.operationId)).toEqual(['rxstore-test:new']);
    expect(OperationsSeen.from(read.cursor.operations!).certainlyNew('rxstore-test:new')).toBe(false);
    // The id the batch after the first cursor used, used again after the second.
    await appendBatch(dir, aTitle('second'), { operationId: 'rxstore-test:new' });
    const again = await readSince(dir, tools.id, read.cursor).catch((error: unknown) => error);
    expect((again as Error).message).toBe('conflicting operation "rxstore-test:new"');
  });

  it('a log damaged before the cursor since it was made is refused in the words of a whole read, not as a read that changed', async () => {
    for (const which of [0, -1]) {
      const dir = await copySession(tools.dir);
      const reused = (await operationIds(dir)).at(which)!;
      const { cursor } = await readSince(dir, tools.id);
      // A batch reusing the first or the last batch's id with other events: only the log before the cursor can judge it.
      await appendBatch(dir, aTitle('taken again'), { operationId: reused });
      // Then a byte of the second batch's begin frame spoilt: its record no longer decodes.
      const begin = (await framesOf(dir)).filter((frame) => frame.record.recordType === 'batch/begin')[1]!;
      const log = join(dir, 'events.frames');
      const bytes = await readFile(log);
      bytes[begin.offset + 20] = bytes[begin.offset + 20]! ^ 0xff;
      await writeFile(log, bytes);
      const whole = await wholeRefusal(dir);
      expect(whole).toBeDefined();
      const since = await readSince(dir, tools.id, cursor).catch((error: unknown) => error);
      expect(since).toBeInstanceOf(DamagedStoreError);
      expect((since as Error).message).toBe(whole);
    }
  });

  it('a cursor made before cursors carried operation ids is judged on the log before it, read once', async () => {
    const dir = await copySession(tools.dir);
    const [first] = await operationIds(dir);
    const { cursor } = await readSince(dir, tools.id);
    const { operations: _, ...older } = cursor;
    await appendBatch(dir, aTitle('fresh'), { operationId: 'rxstore-test:fresh' });
    const read = await readSince(dir, tools.id, older);
    expect(read.batches).toHaveLength(1);
    // The cursor it gives carries them all, those before the old cursor included.
    expect(OperationsSeen.from(read.cursor.operations!).certainlyNew(first!)).toBe(false);
    await appendBatch(dir, aTitle('again'), { operationId: first });
    const again = await readSince(dir, tools.id, older).catch((error: unknown) => error);
    expect((again as Error).message).toBe(`conflicting operation ${JSON.stringify(first)}`);
  });
});

describe('what a cursor keeps of the operation ids', () => {
  it('is exact for a number greater than any seen, and never says "new" of an id it took in', () => {
    const seen = OperationsSeen.none();
    const taken = ['session-create', 'runtime:turn_a:3:0', 'messages:turn-admission:4', 'turn-finalize:turn_a'];
    for (const id of taken) seen.add(id);
    for (const id of taken) expect(seen.certainlyNew(id)).toBe(false);
    expect(seen.certainlyNew('runtime:turn_a:5:0')).toBe(true);
    expect(seen.certainlyNew('messages:turn-admission:0005')).toBe(true);
    // Saved and read back, it answers the same.
    const back = OperationsSeen.from(seen.snapshot()());
    for (const id of taken) expect(back.certainlyNew(id)).toBe(false);
    expect(back.certainlyNew('runtime:turn_a:5:0')).toBe(true);
  });

  it('keeps thousands of ids within a few kilobytes, and still never says "new" of one of them', () => {
    const seen = OperationsSeen.none();
    const taken = Array.from({ length: 20_000 }, (_, n) =>
      n % 3 === 0 ? `turn-finalize:turn_${n}` : `runtime:turn_${n}:${n}:${n % 40}`,
    );
    for (const id of taken) seen.add(id);
    const saved = seen.snapshot()();
    expect(JSON.stringify(saved).length).toBeLessThan(13 * 1024);
    const back = OperationsSeen.from(saved);
    for (const id of taken) expect(back.certainlyNew(id)).toBe(false);
    expect(back.certainlyNew('runtime:turn_x:20001:0')).toBe(true);
  });
});
