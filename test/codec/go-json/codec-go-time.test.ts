import { describe, expect, it } from 'vitest';
import { goRfc3339, goTimeProblem, goWritableRfc3339 } from '../../../src/codec/go-json/go-time.js';

/**
 * Go's `time.Parse` with the RFC 3339 layout, as Reasonix 1.38.11 reads a record's or the manifest's time.
 * The verdicts on the edge cases are the binary's (test/reasonix/reads/manifest-matches-reasonix and
 * test/reasonix/reads/record-fields-match-reasonix run it on such times); these hold the rule in process.
 */
const taken = [
  '0001-01-01T00:00:00Z',
  '2026-11-30T06:48:48.599630499Z',
  '2026-11-30T06:48:48,5Z',
  '2026-11-30T6:48:48Z',
  '2026-11-30T00:00:00.123456789012Z',
  '2026-11-30T23:59:59Z',
  '2026-11-30T06:48:48+05:30',
  '2026-11-30T06:48:48-05:60',
  '2026-11-30T06:48:48+24:00',
  '2028-02-29T01:00:00Z',
  '2000-02-29T01:00:00Z',
  '0000-02-29T00:00:00Z',
  '2026-01-31T00:00:00Z',
  '2026-04-30T00:00:00Z',
  '2026-12-31T00:00:00Z',
];

const refused: [string, string][] = [
  ['2026-11-30t06:48:48Z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:48:48z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:48Z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:8:48Z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:48:48.Z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:48:48+0530', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30 06:48:48Z', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-11-30T06:48:48Z ', 'as "2006-01-02T15:04:05Z07:00"'],
  ['', 'as "2006-01-02T15:04:05Z07:00"'],
  ['2026-13-01T06:48:48Z', ': month out of range'],
  ['2026-00-01T06:48:48Z', ': month out of range'],
  ['2026-11-30T24:00:00Z', ': hour out of range'],
  ['2026-11-30T06:60:00Z', ': minute out of range'],
  ['2026-11-30T06:48:60Z', ': second out of range'],
  ['2026-11-30T06:48:48+25:00', ': time zone offset hour out of range'],
  ['2026-11-30T06:48:48+05:61', ': time zone offset minute out of range'],
  ['2026-12-00T06:48:48Z', ': day out of range'],
  ['2026-11-31T06:48:48Z', ': day out of range'],
  ['2026-02-30T06:48:48Z', ': day out of range'],
  ['2026-02-29T06:48:48Z', ': day out of range'],
  ['2100-02-29T01:00:00Z', ': day out of range'],
  ['2026-01-32T00:00:00Z', ': day out of range'],
];

describe("Go's RFC 3339 layout", () => {
  it.each(taken)('takes %j', (text) => {
    expect(goTimeProblem(text)).toBeUndefined();
    expect(goRfc3339.safeParse(text).success).toBe(true);
  });

  it.each(refused)("refuses %j, in Go's words", (text, words) => {
    expect(goTimeProblem(text)).toBe(
      `parsing time ${JSON.stringify(text)}${words.startsWith(':') ? words : ` ${words}`}`,
    );
    expect(goRfc3339.safeParse(text).error?.issues[0]?.message).toBe(goTimeProblem(text));
  });

  it('writes back no offset of a whole day or more, as Go cannot marshal it', () => {
    expect(goWritableRfc3339.safeParse('2026-11-30T06:48:48+23:59').success).toBe(true);
    expect(goWritableRfc3339.safeParse('2026-11-30T06:48:48-23:59').success).toBe(true);
    expect(goWritableRfc3339.safeParse('2026-11-30T06:48:48Z').success).toBe(true);
    for (const text of ['2026-11-30T06:48:48+24:00', '2026-11-30T06:48:48-23:60']) {
      expect(goWritableRfc3339.safeParse(text).error?.issues[0]?.message).toBe(
        `Time.MarshalJSON: timezone hour outside of range [0,23] in ${JSON.stringify(text)}`,
      );
    }
    expect(goWritableRfc3339.safeParse('2026-13-01T00:00:00Z').error?.issues.map((issue) => issue.message)).toEqual([
      'parsing time "2026-13-01T00:00:00Z": month out of range',
    ]);
    expect(goWritableRfc3339.safeParse('yesterday').error?.issues.map((issue) => issue.message)).toEqual([
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00"',
    ]);
  });
});
