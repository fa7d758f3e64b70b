// The filter a cursor keeps of the ids used before it: it never forgets an id, and a "maybe" for a new id (which
// sends a read to the log before the cursor) stays as rare as its size allows, however it grew to that size.
import { describe, expect, it } from 'vitest';
import { IdFilter, MESSAGE_ID_BITS } from '../../../src/session/cursors/id-filter.js';

const idsOf = (prefix: string, count: number) => Array.from({ length: count }, (_, n) => `${prefix}:${n}`);

function filled(ids: readonly string[]): IdFilter {
  const filter = IdFilter.none(false, MESSAGE_ID_BITS);
  for (const id of ids) filter.add(id);
  return filter;
}

/** The share of 10,000 ids never taken in that the filter says it may hold. */
const maybeRate = (filter: IdFilter) => idsOf('new', 10_000).filter((id) => filter.mayHold(id)).length / 10_000;

/** What a filter of `bits` made at that size holds in the end, as a Bloom filter of 4 probes says it for `count` ids. */
const madeAtSize = (count: number, bits: number) => (1 - Math.exp((-4 * count) / bits)) ** 4;

describe('a cursor filter of ids', () => {
  it.each([
    [4000, 0.01],
    [15_000, 0.16],
  ])(
    'grown from nothing by %i ids, says "maybe" for a new id no more often than one made at its size',
    (count, most) => {
      const filter = filled(idsOf('turn-finalize', count));
      expect(madeAtSize(count, MESSAGE_ID_BITS)).toBeLessThan(most);
      expect(maybeRate(filter)).toBeLessThan(most);
    },
  );

  it.each([
    [4000, 0.08],
    [15_000, 0.33],
  ])('read back from a small cursor, then grown by %i ids, says "maybe" less often than one doubled', (count, most) => {
    const early = filled(idsOf('turn-finalize:early', 64));
    const readBack = IdFilter.from(early.snapshot()(), false, MESSAGE_ID_BITS);
    for (const id of idsOf('turn-finalize', count)) readBack.add(id);
    expect(maybeRate(readBack)).toBeLessThan(most);
    // Eight times over, not to its bound: a cursor of a few hundred ids stays small.
    const fewMore = IdFilter.from(early.snapshot()(), false, MESSAGE_ID_BITS);
    for (const id of idsOf('turn-finalize', 100)) fewMore.add(id);
    expect(Buffer.from(fewMore.snapshot()().bits, 'base64').length * 8).toBe(8192);
  });

  it('holds every id it took in: grown, copied, saved and read back, then grown further', () => {
    const first = idsOf('first', 300);
    const filter = filled(first);
    const saved = filter.snapshot()();
    const readBack = IdFilter.from(saved, false, MESSAGE_ID_BITS);
    const later = idsOf('later', 3000);
    for (const id of later) readBack.add(id);
    const copy = filter.copy();
    for (const id of later) copy.add(id);
    for (const id of [...first, ...later]) {
      expect(readBack.mayHold(id)).toBe(true);
      expect(copy.mayHold(id)).toBe(true);
    }
    for (const id of first) expect(filter.mayHold(id)).toBe(true);
  });

  it('saves, at each point, what a filter fed the same ids from nothing holds', () => {
    const ids = idsOf('call', 5000);
    const filter = IdFilter.none(false, MESSAGE_ID_BITS);
    const snapshots: [number, () => unknown][] = [];
    ids.forEach((id, at) => {
      filter.add(id);
      if (at % 997 === 0 || at === ids.length - 1) snapshots.push([at + 1, filter.snapshot()]);
    });
    for (const [taken, snapshot] of snapshots) expect(snapshot()).toEqual(filled(ids.slice(0, taken)).snapshot()());
  });
});
