import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorMismatchError, openLogSession, type Cursor } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { followInBackground } from '../../support/follow-in-background.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix, layForResume } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

const source = fixture('plain-chat');

describe('incremental reading', () => {
  it('from a cursor gives only what was committed since, and nothing once caught up', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const session = await openLogSession(dir);
    const whole = await session.readSince();
    expect(whole.batches).toHaveLength((await readSession(dir)).batches);
    expect((await session.readSince(whole.cursor)).batches).toEqual([]);
    // A cursor stored as JSON works the same.
    const stored = JSON.parse(JSON.stringify(whole.cursor)) as Cursor;
    expect((await session.readSince(stored)).cursor).toEqual(whole.cursor);
  });

  it('says so when the log was rewritten under the cursor, instead of returning wrong data', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const session = await openLogSession(dir);
    const { cursor } = await session.readSince();
    await truncate(join(dir, 'events.frames'), cursor.offset - 10);
    await expect(session.readSince(cursor)).rejects.toBeInstanceOf(CursorMismatchError);
    const other = await openLogSession(await copySession(fixture('plain-chat').dir));
    await expect(other.readSince(cursor)).rejects.toThrow(/taken from session/);
  });
});

describe.skipIf(!reasonixBinary())(reasonixTitle('following a live session'), () => {
  it('yields every batch Reasonix commits exactly once, never an unfinished one, while it resumes the session twice', async () => {
    const home = await tempDir('rxstore-follow-');
    const dir = await layForResume(source.dir, home, source.workspace);
    const session = await openLogSession(dir);
    const start = await session.readSince();

    const follower = followInBackground((signal) => session.follow({ cursor: start.cursor, signal, pollMs: 200 }));
    const prompts = ['First follow-up.', 'Second follow-up.'];
    for (const prompt of prompts) {
      const mock = await startMockModel([{ text: `Answer to: ${prompt}`, holdMs: 300 }]);
      try {
        const run = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', source.id, prompt],
          mock,
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await mock.close();
      }
    }
    const final = await readSession(dir);
    await follower.until((given) => given.length >= final.batches - start.batches.length, 'every batch committed');
    follower.stop();
    await follower.done;
    expect(follower.seen).toHaveLength(final.batches - start.batches.length);
    const seen = follower.seen.map((item) => item.batch);
    const last = follower.seen.at(-1)!.cursor;

    const sequences = seen.flatMap((batch) => batch.batch.events.map((event) => event.seq));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences[0]).toBe(start.cursor.nextSequence);
    const typed = seen
      .flatMap((batch) => batch.payloads)
      .map((payload) => (payload as { message?: { origin?: string; content?: string } } | undefined)?.message);
    expect(typed.filter((message) => message?.origin === 'user').map((message) => message?.content)).toEqual(prompts);
    expect((await session.readSince(last)).batches).toEqual([]);
  });
});
