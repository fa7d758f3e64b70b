// A log is read with synchronous calls (a listing of thousands of small logs waited longer on the
// thread pool than it spent reading). A long read must still let the event loop turn: a program's
// timers, signals and I/O wait on it otherwise, and so does the garbage collector's work that Node
// runs between turns (a gathered readSince() of 100 MiB peaked 17 MiB higher without them).
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, openLogSession } from '../../../src/index.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

const MiB = 1024 * 1024;

/** A session whose log is a few mebibytes: turns of text that does not compress. */
async function longSession(): Promise<string> {
  const batches = Array.from({ length: 60 }, (_, turn) => ({
    operationId: `long-read:turn-${turn}`,
    events: [complete({ role: 'user', id: messageId(), content: randomBytes(45_000).toString('base64') })],
  }));
  const created = await createSession({ storeDir: join(await tempDir('rxstore-long-read-'), 'sessions-v4'), batches });
  return created.dir;
}

describe('a long read of one log', () => {
  it('lets a timer armed at its first batch fire before the read ends, for events() and readSince()', async () => {
    const dir = await longSession();
    expect((await stat(join(dir, 'events.frames'))).size).toBeGreaterThan(3 * MiB);
    const session = await openLogSession(dir);

    let ended = false;
    let firedBeforeTheEnd: boolean | undefined;
    let read = 0;
    for await (const batch of session.events()) {
      read += batch ? 1 : 0;
      if (read === 1) setImmediate(() => (firedBeforeTheEnd = !ended));
    }
    ended = true;
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(read).toBe(60);
    expect(firedBeforeTheEnd, 'the timer waited for the whole read').toBe(true);

    let gathered = false;
    let firedBeforeGathered: boolean | undefined;
    const reading = session.readSince();
    setImmediate(() => (firedBeforeGathered = !gathered));
    const { batches } = await reading;
    gathered = true;
    expect(batches).toHaveLength(60);
    expect(firedBeforeGathered, 'the timer waited for the whole read').toBe(true);
  });
});
