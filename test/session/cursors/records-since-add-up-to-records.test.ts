import { describe, expect, it } from 'vitest';
import type { IndexRecord, RecordsCursor } from '../../../src/index.js';
import { FIXTURE_NAMES, fixture } from '../../support/fixtures.js';
import { frameBoundaries, growingCopy, readInto, RecordIndex, wholeRecords } from '../../support/sessions/record-index.js';
import { seededRandom } from '../../support/seeded-random.js';

/**
 * The rule an incremental indexer lives by: however a session's log is cut into appended pieces
 * (at any frame boundary: a batch half written is a torn tail, invisible until it is whole),
 * applying the records read since the last cursor after each piece, in order and by key, gives
 * exactly `records()` of the session as it then stands — the title and workspace as the stream
 * last gave them.
 */
async function expectAddsUp(sessionDir: string, cuts: number[], options: { wholeAtEnd?: Awaited<ReturnType<typeof wholeRecords>> } = {}): Promise<void> {
  const copy = await growingCopy(sessionDir);
  const index = new RecordIndex();
  let cursor: RecordsCursor | undefined;
  for (const [at, cut] of cuts.entries()) {
    await copy.growTo(cut);
    cursor = await readInto(copy.dir, index, cursor);
    // Checked after every piece, or (given the whole's records) after the last only.
    if (options.wholeAtEnd && at < cuts.length - 1) continue;
    const whole = options.wholeAtEnd ?? (await wholeRecords(copy.dir));
    expect(whole.byKey.size, `records() gives each key once (log cut at ${cut})`).toBe(whole.count);
    const first = [...whole.byKey.values()][0];
    if (first) expect(index.session, `the session's fields at ${cut}`).toEqual({ title: first.title, workspace: first.workspace });
    expect(sorted(index.current()), `the records of the log's first ${cut} bytes, read in pieces cut at ${cuts.join(', ')}`).toEqual(sorted(whole.byKey));
  }
}

const sorted = (records: Map<string, IndexRecord>) => [...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('records read since cursors add up to records() of the whole, however the log is cut', () => {
  for (const name of FIXTURE_NAMES) {
    it(`${name}: cut once at every frame boundary, at every boundary in turn, and at random boundaries`, async () => {
      const { dir } = fixture(name);
      const boundaries = await frameBoundaries(dir);
      const end = boundaries.at(-1)!;
      const whole = await wholeRecords(dir);
      for (const cut of boundaries) await expectAddsUp(dir, [cut, end], { wholeAtEnd: whole });
      await expectAddsUp(dir, boundaries);
      const random = seededRandom(name.length);
      for (let trial = 0; trial < 3; trial += 1) {
        const cuts = boundaries.filter(() => random.next() < 0.2);
        await expectAddsUp(dir, [...cuts, end]);
      }
    }, 120_000);
  }
});
