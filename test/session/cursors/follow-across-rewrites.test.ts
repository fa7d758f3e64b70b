// Following a session while its log changes under the follower in ways other than a plain append:
// a repair cutting a torn tail (the follower goes on), a log rewritten before its cursor (the
// follower stops with CursorMismatchError, having yielded nothing wrong), and following by polling
// alone, with no file-system notifications at all.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { encodeBatch } from '../../../src/codec/encode-batch.js';
import { CursorMismatchError, openLogSession, type BatchSince } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { copySession, endFrames, logOf, replaceFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { followInBackground } from '../../support/follow-in-background.js';
import { seededRandom } from '../../support/seeded-random.js';

const source = fixture('tool-calls');

/** Follows a session in the background, keeping what it yields and how it ended. */
const startFollowing = (dir: string, options: { watch?: boolean; pollMs: number }) =>
  followInBackground(async function* (signal) {
    yield* (await openLogSession(dir)).follow({ ...options, signal });
  });

const titleBatch = (title: string) => ({
  operationId: `rxstore-test:${title}`,
  events: [{ kind: 'session/title', payload: { title } }],
});
const titles = (seen: BatchSince[]) =>
  seen
    .flatMap((item) => item.batch.payloads)
    .flatMap((payload) =>
      (payload as { title?: string } | undefined)?.title ? [(payload as { title: string }).title] : [],
    );
const sequences = (seen: BatchSince[]) => seen.flatMap((item) => item.batch.batch.events.map((event) => event.seq));
const oneToN = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

describe('following a session whose log changes under the follower', () => {
  it('goes on across a repair of a torn tail: never the unfinished batch, then the next one appended, once', async () => {
    const dir = await copySession(source.dir);
    await replaceFrame(dir, (await endFrames(dir)).at(-1)!, Buffer.alloc(0));
    const torn = await readSession(dir);
    expect(torn.status).toBe('torn-tail');

    const follower = startFollowing(dir, { pollMs: 50 });
    await follower.until((seen) => seen.length >= torn.batches, 'the backlog');
    expect(follower.seen).toHaveLength(torn.batches);
    const repaired = await runCli(['repair', dir]);
    expect(repaired.code, repaired.stderr).toBe(0);
    await appendBatches(dir, [titleBatch('after the repair')]);
    await follower.until((seen) => titles(seen).includes('after the repair'), 'after the repair');
    follower.stop();
    await follower.done;

    expect(follower.seen).toHaveLength(torn.batches + 1);
    expect(sequences(follower.seen)).toEqual(oneToN(torn.lastSequence + 1));
    expect(follower.seen.at(-1)!.cursor.offset).toBe((await readFile(logOf(dir))).length);
  });

  it('stops with CursorMismatchError when the bytes before its cursor are rewritten, and yields nothing from the new log', async () => {
    const dir = await copySession(source.dir);
    const before = await readSession(dir);
    const follower = startFollowing(dir, { pollMs: 50 });
    await follower.until((seen) => seen.length >= before.batches, 'the backlog');
    expect(follower.seen).toHaveLength(before.batches);
    const cursor = follower.seen.at(-1)!.cursor;

    // Another log takes its place, longer than the cursor's offset: the last batch replaced by a different one.
    const ends = await endFrames(dir);
    const keep = ends.at(-2)!.offset + ends.at(-2)!.bytes;
    const log = await readFile(logOf(dir));
    const random = seededRandom(7);
    const title = Array.from({ length: 8192 }, () => random.int(16).toString(16)).join(''); // does not compress away
    const other = await encodeBatch(
      { operationId: 'rxstore-test:another-log', events: [{ kind: 'session/title', payload: { title } }] },
      {
        sessionId: before.id,
        writerGeneration: 1,
        firstSeq: cursor.nextSequence - (ends.at(-1)!.record.eventCount as number),
        offset: keep,
      },
    );
    const rewritten = Buffer.concat([log.subarray(0, keep), other.bytes]);
    expect(rewritten.length).toBeGreaterThan(cursor.offset);
    await writeFile(`${logOf(dir)}.new`, rewritten);
    await rename(`${logOf(dir)}.new`, logOf(dir));

    const error = await follower.done.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CursorMismatchError);
    expect((error as Error).message).toMatch(/the bytes before the offset changed/);
    expect(follower.seen).toHaveLength(before.batches);
    expect(titles(follower.seen)).not.toContain(title);
  });

  it('follows by polling alone, without file-system notifications', async () => {
    const dir = await copySession(source.dir);
    const before = await readSession(dir);
    const follower = startFollowing(dir, { watch: false, pollMs: 20 });
    await follower.until((seen) => seen.length >= before.batches, 'the backlog');
    expect(follower.seen).toHaveLength(before.batches);
    await appendBatches(dir, [titleBatch('first by polling')]);
    await follower.until((seen) => titles(seen).includes('first by polling'), 'first by polling');
    await appendBatches(dir, [titleBatch('second by polling')]);
    await follower.until((seen) => titles(seen).includes('second by polling'), 'second by polling');
    follower.stop();
    await follower.done;
    expect(follower.seen).toHaveLength(before.batches + 2);
    expect(sequences(follower.seen)).toEqual(oneToN(before.lastSequence + 2));
  });
});
