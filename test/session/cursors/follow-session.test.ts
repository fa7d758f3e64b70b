// followSession in process: what wakes it (a file-system notification, a poll, an abort) and where
// it starts and stops. A poll interval of an hour means only a notification or the abort can wake it.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { followSession, type FollowOptions } from '../../../src/session/cursors/follow.js';
import type { Cursor } from '../../../src/session/cursors/cursor.js';
import type { BatchSince } from '../../../src/session/cursors/read-since.js';
import { readSince } from '../../../src/session/cursors/read-since.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { followInBackground } from '../../support/follow-in-background.js';

const source = fixture('plain-chat');
const AN_HOUR = 3_600_000;

const startFollowing = (dir: string, options: FollowOptions) =>
  followInBackground((signal) => followSession(dir, source.id, { ...options, signal }));

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

describe('followSession', () => {
  it('gives the backlog at once, then each appended batch as the directory notifies it, and ends when aborted while waiting', async () => {
    const dir = await copySession(source.dir);
    const follower = startFollowing(dir, { pollMs: AN_HOUR });
    await follower.until((seen) => seen.length >= source.counts.batches, 'the backlog');
    expect(follower.seen).toHaveLength(source.counts.batches);
    await appendBatches(dir, [titleBatch('woken by a notification')]);
    await follower.until((seen) => titles(seen).length > 0, 'woken by a notification');
    expect(titles(follower.seen)).toEqual(['woken by a notification']);
    follower.stop();
    await follower.done;
    expect(follower.seen).toHaveLength(source.counts.batches + 1);
    // Each item's cursor is where a reader that stops there resumes: the next batch, exactly. (A
    // cursor's stamp is of the log as its read began, kept only at the log's end then: the follower's
    // last backlog cursor has one, the same place read now that the log is longer has none.)
    const whole = await readSince(dir, source.id);
    const place = ({ logStamp: _, ...cursor }: Cursor) => cursor;
    expect(follower.seen.map((item) => place(item.cursor))).toEqual(
      await Promise.all(
        whole.batches.map(async (_, at) =>
          place((await readSince(dir, source.id, undefined, { maxBatches: at + 1 })).cursor),
        ),
      ),
    );
  });

  it('starts after a cursor, and with notifications off, polls', async () => {
    const dir = await copySession(source.dir);
    const { cursor } = await readSince(dir, source.id, undefined, { maxBatches: 3 });
    const follower = startFollowing(dir, { cursor, pollMs: 10, watch: false });
    await follower.until((seen) => seen.length >= source.counts.batches - 3, 'the backlog');
    expect(follower.seen).toHaveLength(source.counts.batches - 3);
    expect(follower.seen[0]!.batch.batch.offset).toBe(cursor.offset);
    await appendBatches(dir, [titleBatch('found by polling')]);
    await follower.until((seen) => titles(seen).length > 0, 'found by polling');
    expect(titles(follower.seen)).toEqual(['found by polling']);
    follower.stop();
    await follower.done;
    expect(follower.seen.at(-1)!.cursor.offset).toBe((await readSession(dir, { caches: false })).durableEnd);
  });

  it('with notifications off and an hour between polls, an abort still ends the wait at once', async () => {
    const dir = await copySession(source.dir);
    const follower = startFollowing(dir, { pollMs: AN_HOUR, watch: false });
    await follower.until((seen) => seen.length >= source.counts.batches, 'the backlog');
    expect(follower.seen).toHaveLength(source.counts.batches);
    follower.stop();
    await follower.done;
  });

  it.skipIf(process.platform !== 'linux')('once it ends, the files it read are closed', async () => {
    const dir = await copySession(source.dir);
    const before = readdirSync('/proc/self/fd').length;
    const follower = startFollowing(dir, { pollMs: AN_HOUR });
    await follower.until((seen) => seen.length >= source.counts.batches, 'the backlog');
    expect(follower.seen).toHaveLength(source.counts.batches);
    follower.stop();
    await follower.done;
    expect(readdirSync('/proc/self/fd').length).toBe(before);
  });

  it('aborted before it starts gives nothing; aborted by the consumer mid-backlog gives nothing more', async () => {
    const dir = await copySession(source.dir);
    const aborted = new AbortController();
    aborted.abort();
    const none: BatchSince[] = [];
    for await (const item of followSession(dir, source.id, { signal: aborted.signal, pollMs: AN_HOUR }))
      none.push(item);
    expect(none).toEqual([]);

    const controller = new AbortController();
    const some: BatchSince[] = [];
    for await (const item of followSession(dir, source.id, { signal: controller.signal, pollMs: AN_HOUR })) {
      some.push(item);
      controller.abort();
    }
    expect(some).toHaveLength(1);
  });

  it('a consumer that breaks off and follows again from its cursor misses nothing and repeats nothing', async () => {
    const dir = await copySession(source.dir);
    const first: BatchSince[] = [];
    for await (const item of followSession(dir, source.id, { pollMs: AN_HOUR })) {
      first.push(item);
      if (first.length === 2) break;
    }
    const rest = startFollowing(dir, { cursor: first.at(-1)!.cursor, pollMs: AN_HOUR });
    await rest.until((seen) => seen.length >= source.counts.batches - 2, 'the backlog');
    expect(rest.seen).toHaveLength(source.counts.batches - 2);
    rest.stop();
    await rest.done;
    const sequences = [...first, ...rest.seen].flatMap((item) => item.batch.batch.events.map((event) => event.seq));
    expect(sequences).toEqual(Array.from({ length: source.counts.events }, (_, at) => at + 1));
  });
});
