import { UsageError } from '../index.js';

/** A date, then a time of day to the minute, second or fraction, then `Z` or an offset: `2026-05-01T10:00+02:00`. */
const TYPED_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** How many days a month (1 to 12) of a year has: day 0 of the next month is its last. */
function daysIn(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}

/**
 * A time option (`--since`, `--until`) as a person types it: a date (`2026-05-01`) or an ISO time. One without
 * `Z` or an offset is local time, a bare date its midnight, as `ls` shows times in local time; a day or hour
 * that does not exist (`2026-02-30`, `T25:00`) is a usage error, never rolled over into the next month.
 */
export function timeOption(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parts = TYPED_TIME.exec(value);
  // Times are kept to the millisecond (a hit's is its message's, cut there): a bound between two milliseconds
  // would take in, or leave out, a message up to a millisecond on the wrong side of it.
  if (/[1-9]/.test(parts?.[7]?.slice(3) ?? ''))
    throw new UsageError(
      `${name} takes a time to the millisecond at most, as times are kept, not ${JSON.stringify(value)}`,
    );
  const time = parts === null ? undefined : timeOf(parts);
  if (time === 'skipped')
    throw new UsageError(`${name} takes a time that exists: ${JSON.stringify(value)} is a local time the clocks skip`);
  if (time === undefined)
    throw new UsageError(`${name} takes a date (2026-05-01) or an ISO time, not ${JSON.stringify(value)}`);
  return time;
}

/** The time typed, `skipped` for a local time the clocks skip, undefined for a day or time no calendar has. */
function timeOf(parts: RegExpExecArray): Date | 'skipped' | undefined {
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const fraction = Number((parts[7] ?? '').padEnd(3, '0').slice(0, 3));
  const zone = parts[8];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59) return undefined;
  const time = new Date(0);
  if (zone === undefined) {
    // setFullYear, not the constructor: that takes years 0 to 99 for 1900 to 1999.
    time.setFullYear(year!, month! - 1, day!);
    time.setHours(hour!, minute!, second!, fraction);
    // A local time the clocks skip (02:30 where they go from 02:00 to 03:00) would be moved past the gap. A bare
    // date is its day's start, which the move gives where the clocks skip midnight.
    const moved = time.getDate() !== day || time.getHours() !== hour || time.getMinutes() !== minute;
    return moved && parts[4] !== undefined ? 'skipped' : time;
  }
  const offset = /^[+-](\d{2}):?(\d{2})?$/.exec(zone);
  const [offsetHours, offsetMinutes] = offset === null ? [0, 0] : [Number(offset[1]), Number(offset[2] ?? 0)];
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  time.setUTCFullYear(year!, month! - 1, day!);
  time.setUTCHours(hour!, minute!, second!, fraction);
  const sign = zone.startsWith('-') ? -1 : 1;
  return new Date(time.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
}
