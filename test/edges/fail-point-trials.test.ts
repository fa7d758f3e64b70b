import { describe, expect, it } from 'vitest';
import { describeHit, hitsOf, hitsToTry, type FailPointHit } from '../support/faults/fail-points.js';

const passes = (name: string, times: number): FailPointHit[] =>
  Array.from({ length: times }, (_, index) => ({ name, hit: index + 1 }));

describe('the fail-point trials a crash or fault test runs', () => {
  it('tries every hit of a name passed a few times, and the ends of a loop', () => {
    const hits = [...passes('write.atomic', 4), ...passes('write.create-log', 52), ...passes('write.atomic-late', 1)];
    expect(hitsToTry(hits)).toEqual([
      ...passes('write.atomic', 4),
      { name: 'write.create-log', hit: 1 },
      { name: 'write.create-log', hit: 2 },
      { name: 'write.create-log', hit: 3 },
      { name: 'write.create-log', hit: 51 },
      { name: 'write.create-log', hit: 52 },
      { name: 'write.atomic-late', hit: 1 },
    ]);
  });

  it('keeps the order the run passed them in, names interleaved', () => {
    const hits = passes('a', 8).flatMap((point) => [point, { name: 'b', hit: point.hit }]);
    expect(hitsToTry(hits).map((point) => `${point.name}:${point.hit}`)).toEqual([
      'a:1',
      'b:1',
      'a:2',
      'b:2',
      'a:3',
      'b:3',
      'a:7',
      'b:7',
      'a:8',
      'b:8',
    ]);
  });

  it('passes over a point that leaves the files of the one just before it, when that one is tried', () => {
    const hits = hitsOf([
      'write.atomic',
      'atomic.temp-written',
      'atomic.temp-synced',
      'atomic.before-rename',
      'atomic.renamed',
      'dir.synced',
      'content.temp-removed',
      'dir.synced',
      'repair.log-synced',
    ]);
    expect(hitsToTry(hits).map(describeHit)).toEqual([
      'write.atomic:1',
      'atomic.temp-written:1',
      // A folder's lock may be released between a rename and its folder's fsync: tried.
      'atomic.renamed:1',
      'dir.synced:1',
      'content.temp-removed:1',
      // Not after the point it repeats: tried.
      'repair.log-synced:1',
    ]);
  });

  it('tries a point that repeats one a loop passed over without a trial', () => {
    const hits = [...passes('create.batch-written', 52), { name: 'create.log-synced', hit: 1 }];
    const tried = hitsToTry(hits).map(describeHit);
    expect(tried).toContain('create.batch-written:52');
    expect(tried).not.toContain('create.log-synced:1');
    const middle = [...passes('create.batch-written', 52)];
    middle.splice(30, 0, { name: 'create.log-synced', hit: 1 });
    expect(hitsToTry(middle).map(describeHit)).toContain('create.log-synced:1');
  });
});
