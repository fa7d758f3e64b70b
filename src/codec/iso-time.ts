/**
 * A time as rxstore prints it, in every command's text and JSON: ISO 8601 in UTC with milliseconds
 * always (`2026-12-03T09:10:10.900Z`), whatever precision the store wrote (Go drops trailing zeros and
 * keeps nanoseconds: `…10.9Z`, `…10.900123Z`). Null for no time, or for text that is none.
 */
export function isoTime(value: string | number | Date | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  const time = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}
