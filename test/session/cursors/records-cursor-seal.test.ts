import { describe, expect, it } from 'vitest';
import { CursorMismatchError, type RecordsCursor } from '../../../src/index.js';
import { openLogSession } from '../../../src/store/open-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { drain } from '../../support/drain.js';
import { complete, typedMessage as user } from '../../support/sessions/messages.js';

/**
 * A records cursor is given back whole: one pieced from two of one session (one's log position, another's
 * records state) would read on from the wrong place, skipping or repeating records, so it is refused by its seal.
 * A cursor kept with its keys in another order (as PostgreSQL's jsonb keeps JSON), or one made before seals,
 * is taken.
 */
async function cursors(): Promise<{ dir: string; all: RecordsCursor[] }> {
  const dir = await copySession(fixture('tool-calls').dir);
  await appendBatch(dir, [complete(user('01Z0000000000000000000000A', 'one more'))]);
  await appendBatch(dir, [complete(user('01Z0000000000000000000000B', 'and the last'))]);
  const pieces = await drain((await openLogSession(dir)).recordsSince());
  expect(pieces.error).toBeUndefined();
  // As an indexer keeps them: JSON.
  const all = pieces.items.map((piece) => JSON.parse(JSON.stringify(piece.cursor)) as RecordsCursor);
  expect(all.length).toBeGreaterThan(2);
  return { dir, all };
}

const readFrom = async (dir: string, cursor: unknown) =>
  drain((await openLogSession(dir)).recordsSince(cursor as RecordsCursor));

/** The value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, each]) => [key, reordered(each)]),
  );
}

describe('a records cursor pieced from two', () => {
  it.each([
    [
      'a later log position with an earlier state',
      (mid: RecordsCursor, last: RecordsCursor) => ({ ...mid, log: last.log }),
    ],
    [
      'an earlier state of the transcript ids',
      (mid: RecordsCursor, last: RecordsCursor) => ({ ...last, ids: mid.ids }),
    ],
    [
      'an earlier session state',
      (mid: RecordsCursor, last: RecordsCursor) => ({ ...last, session: { ...mid.session, title: 'pieced' } }),
    ],
  ])('%s is refused, nothing read', async (_, piece) => {
    const { dir, all } = await cursors();
    const read = await readFrom(dir, piece(all[0]!, all.at(-2)!));
    expect(read.items).toEqual([]);
    expect(read.error).toBeInstanceOf(CursorMismatchError);
    expect((read.error as Error).message).toContain('not made together');
  });

  it('kept with its keys in another order, or made before seals, is taken', async () => {
    const { dir, all } = await cursors();
    const given = all.at(-2)!;
    const expected = await readFrom(dir, given);
    expect(expected.error).toBeUndefined();
    expect(expected.items.length).toBeGreaterThan(0);
    const strip = (items: { records: unknown }[]) => items.map((item) => item.records);
    expect(strip((await readFrom(dir, reordered(given))).items)).toEqual(strip(expected.items));
    const { seal, ...unsealed } = given;
    expect(seal).toMatch(/^[0-9a-f]{64}$/);
    expect(strip((await readFrom(dir, unsealed)).items)).toEqual(strip(expected.items));
  });
});
