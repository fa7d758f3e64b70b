/** A time as an ISO 8601 UTC string, or null when it is missing or not a time. */
export function isoTime(value: string | number | Date | undefined | null): string | null {
  if (value === undefined || value === null || value === '') return null;
  const time = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}
