import { describe, expect, it } from 'vitest';
import { hitsToTry, type FailPointHit } from '../support/faults/fail-points.js';

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
});
