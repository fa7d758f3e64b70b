import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { fixture, FIXTURE_NAMES } from '../support/fixtures.js';

describe('every fixture written by the real Reasonix decodes', () => {
  it.each(FIXTURE_NAMES)('%s: every batch verifies and the counts match its note', async (name) => {
    const { dir, counts } = fixture(name);
    const read = await readSession(dir);
    expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(read.status).toBe('ok');
    expect(read.batches).toBe(counts.batches);
    expect(read.events.total).toBe(counts.events);
    expect(read.events.byKind).toEqual(counts.eventsByKind);
    expect(read.payloadRefs).toBe(counts.payloadRefs);
  });
});
