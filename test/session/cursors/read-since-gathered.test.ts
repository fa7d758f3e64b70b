// A gathered read holds equal long strings of a batch once (a tool's output is written twice in the
// batch that ends its call): what it gives must still be, value for value, what the stream gives.
import { describe, expect, it } from 'vitest';
import { batchesSince, readSince } from '../../../src/session/cursors/read-since.js';
import type { ResolvedBatch } from '../../../src/session/reading/read-events.js';
import { fixture } from '../../support/fixtures.js';

describe('readSince gathers what batchesSince streams', () => {
  for (const name of ['compacted', 'payload-ref', 'tool-calls'] as const)
    it(`the same batches, payloads and bytes (${name}, written by Reasonix)`, async () => {
      const { dir, id } = fixture(name);
      const streamed: ResolvedBatch[] = [];
      for await (const { batch } of batchesSince(dir, id)) streamed.push(batch);
      const gathered = await readSince(dir, id);
      expect(gathered.batches.length).toBeGreaterThan(0);
      expect(gathered.batches).toEqual(streamed);
      // The fixtures written by Reasonix hold a long text twice in one batch: the case shared.
      if (name !== 'tool-calls') expect(gathered.batches.some(({ payloads }) => repeatsLongText(payloads))).toBe(true);
    });
});

/** Whether two of the values' strings of 1,024 characters or more are equal. */
function repeatsLongText(values: unknown[]): boolean {
  const seen = new Set<string>();
  const stack: unknown[] = [...values];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string' && value.length >= 1024) {
      if (seen.has(value)) return true;
      seen.add(value);
    } else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return false;
}
