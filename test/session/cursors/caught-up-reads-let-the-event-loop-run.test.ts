import { describe, expect, it } from 'vitest';
import { openLogSession, type RecordsCursor } from '../../../src/index.js';
import { fixture } from '../../support/fixtures.js';

/**
 * An indexer polls its sessions: a read since a cursor that finds nothing new is a few
 * microseconds of synchronous file work. A loop of them must still let a timer, a signal or I/O
 * in between sessions, or a stop asked for waits for the whole loop.
 */
describe('reads since a cursor that find nothing new', () => {
  it('let a timer fire while a loop of them runs', async () => {
    const session = await openLogSession(fixture('tool-calls').dir);
    let cursor: RecordsCursor | undefined;
    for await (const piece of session.recordsSince(undefined, { cursorAtEnd: true })) cursor = piece.cursor;
    const log = (await session.readSince()).cursor;
    let fired = false;
    const timer = setTimeout(() => (fired = true), 0);
    let reads = 0;
    // Caught up: every read finds nothing. A loop that never yields runs all of them before the timer.
    while (!fired && reads < 20_000) {
      for await (const piece of session.recordsSince(cursor))
        throw new Error(`nothing is new, yet ${JSON.stringify(piece.records)}`);
      for await (const item of session.batchesSince(log))
        throw new Error(`nothing is new, yet a batch at ${item.batch.batch.offset}`);
      reads += 1;
    }
    clearTimeout(timer);
    expect(fired, `the timer had not fired after ${reads} caught-up reads`).toBe(true);
    expect(reads).toBeLessThan(20_000);
  });
});
