import * as z from 'zod';

/**
 * Go's `time.Time` as Reasonix 1.38.11 reads it from JSON: `time.Parse` with the RFC 3339 layout, which is
 * looser than RFC 3339 in places (an hour of one digit, `,` before the fraction, a fraction of any length,
 * an offset of 24 hours) and stricter in others (`T` and `Z` in upper case, seconds required). Measured
 * against the binary; docs/format.md §4.5.
 */
const LAYOUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Go's zero `time.Time`, which Reasonix writes on every event and end record (docs/format.md §4.5): most times
 * read are this one.
 */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Why Go's `time.Parse` refuses `text` as RFC 3339, in its words, or undefined when it takes it. */
export function goTimeProblem(text: string): string | undefined {
  // Stryker disable next-line ConditionalExpression: Go's zero time passes the full check too (speed only: it is on every event record)
  if (text === ZERO_TIME) return undefined;
  const match = LAYOUT.exec(text);
  if (!match) return `parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05Z07:00"`;
  // Stryker disable next-line ConditionalExpression: an absent part becomes NaN instead of undefined: every range test below is false for both
  const [, year, month, day, hour, minute, second, , offsetHour, offsetMinute] = match.map((part) =>
    part === undefined ? undefined : Number(part),
  );
  const range = (what: string) => `parsing time ${JSON.stringify(text)}: ${what} out of range`;
  if (month! < 1 || month! > 12) return range('month');
  if (hour! > 23) return range('hour');
  if (minute! > 59) return range('minute');
  if (second! > 59) return range('second');
  // Go's range test on an offset is `>`: some people write offsets of 24 hours or 60 minutes.
  if (offsetHour! > 24) return range('time zone offset hour');
  if (offsetMinute! > 60) return range('time zone offset minute');
  if (day! < 1 || day! > daysIn(month!, year!)) return range('day');
  return undefined;
}

/** A whole offset of 24 hours or more, which Go reads but cannot write back (`timezone hour outside of range [0,23]`). */
function offsetGoCannotWrite(text: string): boolean {
  const match = LAYOUT.exec(text);
  return match?.[8] !== undefined && Number(match[8]) * 60 + Number(match[9]) >= 24 * 60;
}

/** A `time.Time` field: a string Go's RFC 3339 parse takes. */
export const goRfc3339 = z.string().superRefine((text, context) => {
  const problem = goTimeProblem(text);
  // Stryker disable next-line StringLiteral: not the message: the issue's code (custom), which rxstore never shows (its path and message are shown
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * A `time.Time` of a file Reasonix writes again when it opens it (the manifest): Go must also be able to
 * marshal it, which an offset of a whole day or more prevents.
 */
export const goWritableRfc3339 = goRfc3339.superRefine((text, context) => {
  // Stryker disable next-line StringLiteral: not the message: the issue's code (custom), which rxstore never shows (its path and message are shown
  if (offsetGoCannotWrite(text))
    context.addIssue({
      code: 'custom',
      message: `Time.MarshalJSON: timezone hour outside of range [0,23] in ${JSON.stringify(text)}`,
    });
});

/**
 * The time as Go writes it back in UTC (`t.UTC().Format(time.RFC3339Nano)`): seconds, then the fraction to the
 * nanosecond without its trailing zeros (none when it is zero), then `Z`. Undefined for a text Go does not parse.
 */
export function goUtcNanoText(text: string): string | undefined {
  const match = goTimeProblem(text) === undefined ? LAYOUT.exec(text) : null;
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const offset = match[7] === undefined ? 0 : (match[7] === '-' ? -1 : 1) * (Number(match[8]) * 60 + Number(match[9]));
  const time = new Date(0);
  time.setUTCFullYear(year!, month! - 1, day!);
  time.setUTCHours(hour!, minute! - offset, second!, 0);
  const fraction = (/[.,](\d+)/.exec(text)?.[1] ?? '').slice(0, 9).replace(/0+$/, '');
  return `${time.toISOString().slice(0, 19)}${fraction === '' ? '' : `.${fraction}`}Z`;
}
