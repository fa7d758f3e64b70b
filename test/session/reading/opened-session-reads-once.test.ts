// An opened session reads its files once for all its views while they stand unchanged, and again
// as soon as one changed: an indexer asking for a summary, the records and the transcript pays for
// one read, and never gets an answer older than the files.
import { appendFile, copyFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError, openSession, type OpenedSession } from '../../../src/index.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { copySession, endFrames, replaceFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

const titleBatch = (title: string) => ({
  operationId: `rxstore-test:${title}`,
  events: [{ kind: 'session/title', payload: { title } }],
});

/** The message objects of every view: the same objects only when the views share one read. */
async function viewsOf(session: OpenedSession) {
  return {
    read: await session.read(),
    transcript: await all(session.transcript()),
    person: await all(session.personView()),
  };
}

describe('an opened session reads its files once for all its views', () => {
  it('a sessions-v4 log: one read while it stands, a new one after an append', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const session = await openSession(dir);
    const first = await viewsOf(session);
    const again = await viewsOf(session);
    // The very same read and message objects: nothing was read again.
    expect(again.read).toBe(first.read);
    expect(again.transcript).toHaveLength(first.transcript.length);
    again.transcript.forEach((timed, index) => expect(timed.message).toBe(first.transcript[index]!.message));
    // A read that keeps less is its own read.
    expect(await session.read({ keep: 'summary' })).not.toBe(first.read);

    await appendBatches(dir, [titleBatch('renamed after the first read')]);
    const after = await viewsOf(session);
    expect(after.read).not.toBe(first.read);
    expect(after.read.projection.title).toBe('renamed after the first read');
    expect(after.read.batches).toBe(first.read.batches + 1);
    expect((await all(session.records())).every((record) => record.title === 'renamed after the first read')).toBe(
      true,
    );
  });

  it('a JSONL transcript: a line added after the first read is in the next view', async () => {
    const dir = await tempDir();
    const path = join(dir, 'transcript.jsonl');
    const source = join(
      fixture('jsonl-migrated').root,
      'projects',
      '-tmp-rxstore-fixture-ws-jsonl-migrated',
      'sessions',
      'legacy-demo.jsonl',
    );
    await copyFile(source, path);
    await copyFile(`${source}.meta`, `${path}.meta`);
    const session = await openSession(path);
    const first = await all(session.transcript());
    expect(await all(session.transcript())).toEqual(first);
    await appendFile(path, `${JSON.stringify({ role: 'user', content: 'one more line' })}\n`);
    const after = await all(session.transcript());
    expect(after).toHaveLength(first.length + 1);
    expect(after.at(-1)!.message.content).toBe('one more line');
  });

  it('a session damaged after its first read: every later view ends in the damage, never the kept answer', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const session = await openSession(dir);
    const whole = await all(session.transcript());
    expect(whole.length).toBeGreaterThan(0);
    const ends = await endFrames(dir);
    await replaceFrame(dir, ends[0]!, Buffer.from('not a frame at all'));
    const views: (() => AsyncIterable<unknown>)[] = [
      () => session.transcript(),
      () => session.records(),
      () => session.modelView(),
    ];
    for (const view of views) await expect(all(view())).rejects.toBeInstanceOf(DamagedStoreError);
    expect((await session.read()).status).toBe('damaged');
  });

  // A payloadRef's bytes live in the store's `.content-v1`, outside the session directory: once they
  // are gone Reasonix 1.38.11 refuses the session (the fault matrix), and an open session must say so too.
  it('a session whose content store was removed after its first read answers damaged, as a freshly opened one does', async () => {
    const dir = await copySession(fixture('payload-ref').dir);
    const session = await openSession(dir);
    expect((await session.read()).status).toBe('ok');
    await rm(join(dirname(dir), '.content-v1'), { recursive: true });
    const fresh = await (await openSession(dir)).read();
    expect(fresh.status).toBe('damaged');
    const again = await session.read();
    expect(again.status).toBe('damaged');
    expect(again.refusal?.code).toBe(fresh.refusal?.code);
    await expect(all(session.personView())).rejects.toMatchObject({ code: fresh.refusal?.code, family: 'damaged' });
  });
});
