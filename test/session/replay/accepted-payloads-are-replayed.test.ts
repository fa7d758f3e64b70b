import { describe, expect, it } from 'vitest';
import { decodePayload, isReplayedKind, PayloadSchemas } from '../../../src/session/replay/payloads.js';
import { framesOf } from '../../support/faults/faults.js';
import { fixture, FIXTURE_NAMES } from '../../support/fixtures.js';

/**
 * The replay reads each payload twice: `decodePayload` judges it as Reasonix does, then the kind's
 * loose schema types it for the projection, which skips a payload that does not fit. So every
 * payload Reasonix accepts must fit its loose schema, or rxstore would show a session without what
 * Reasonix shows (a `null` in a list of messages once did exactly that). Checked on every payload
 * of the fixtures Reasonix wrote, and on each with one value, or one list element, replaced by
 * values that strain a reader.
 */
const STRAINING = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  '',
  ' ',
  '\u0000',
  '\ud800',
  [],
  {},
  [null],
  [{}],
  { role: null },
];

/** The payload with the value at each place (every key, every list element) replaced by each straining value. */
function* variants(payload: unknown): Generator<unknown> {
  yield payload;
  const places: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    if (Array.isArray(value)) {
      places.push([...path, value.length]);
      value.forEach((item, index) => {
        places.push([...path, index]);
        walk(item, [...path, index]);
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        places.push([...path, key]);
        walk(item, [...path, key]);
      }
    }
  };
  walk(payload, []);
  for (const place of places) {
    for (const straining of STRAINING) {
      const copy = structuredClone(payload) as Record<string | number, unknown>;
      let at: Record<string | number, unknown> = copy;
      for (const step of place.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
      at[place.at(-1)!] = straining;
      yield copy;
    }
  }
}

describe('every payload Reasonix accepts is replayed, none skipped', () => {
  it.each(FIXTURE_NAMES)('%s: each payload, and each with one value strained', async (name) => {
    const frames = await framesOf(fixture(name).dir);
    let judged = 0;
    const skipped: string[] = [];
    for (const { record } of frames) {
      // Inline payloads are base64 of their JSON; larger ones live in the content store, and are left out here.
      const event = record.event as { kind?: string; payload?: string } | undefined;
      if (!event?.kind || !isReplayedKind(event.kind) || event.payload === undefined) continue;
      for (const payload of variants(JSON.parse(Buffer.from(event.payload, 'base64').toString('utf8')))) {
        const verdict = decodePayload(event.kind, Buffer.from(JSON.stringify(payload)));
        if (verdict.state !== 'ok') continue;
        judged += 1;
        if (!PayloadSchemas[event.kind].safeParse(verdict.value).success)
          skipped.push(`${event.kind} ${JSON.stringify(payload).slice(0, 200)}`);
      }
    }
    expect(judged).toBeGreaterThan(0);
    expect(skipped).toEqual([]);
  });
});
