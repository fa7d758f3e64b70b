import { jsonText } from './json-text.js';
import { withRawJsonTexts } from './raw-json.js';

/**
 * JSON as Go's `encoding/json` writes it: compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped
 * inside strings (docs/format.md §4). Byte-identical records need it; digests and operation hashes cover it.
 * Key order is the caller's: build objects in the field order Reasonix uses. A `RawJson` in the value is written as
 * its text, escaped as the rest (Go's encoder escapes a json.RawMessage's text too).
 */
export function goJson(value: unknown): string {
  return goEscape(withRawJsonTexts(jsonText(value)));
}

/** Go's `json.MarshalIndent(value, "", "  ")` plus the trailing newline Reasonix adds to its files. */
export function goJsonIndented(value: unknown): string {
  return `${goEscape(jsonText(value, 2))}\n`;
}

function goEscape(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A time as Go's `time.Time` marshals it in UTC (docs/format.md §4.5): RFC 3339 with the fraction's
 * trailing zeros removed. Strings are passed through, so nanosecond times survive a round trip.
 */
export function goTime(time: Date | string): string {
  if (typeof time === 'string') return time;
  // Stryker disable next-line Regex: toISOString always ends with Z and has one .: the anchor changes nothing
  return time.toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}
