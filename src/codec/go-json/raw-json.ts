import { randomBytes } from 'node:crypto';
import { stringEnd } from './json-strings.js';

/**
 * What a `RawJson` stands for while `JSON.stringify` writes it: a string no value holds (a NUL, then a token drawn
 * for this process, which no text read can guess), followed by the text itself.
 */
const MARKER = `\u0000rxstore-raw-${randomBytes(12).toString('hex')}:`;
/** The marker as `JSON.stringify` writes it inside a string. */
const WRITTEN_MARKER = JSON.stringify(MARKER).slice(1, -1);

/**
 * JSON text to write as it is, where Go writes a `json.RawMessage` as it was read (compacted): put in a value
 * in place of what the text holds, `goJson` writes the text (docs/format.md §17.1).
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): string {
    return MARKER + this.text;
  }
}

/** JSON written by `JSON.stringify` with each `RawJson` in it put back as its text. */
export function withRawJsonTexts(json: string): string {
  let at = json.indexOf(`"${WRITTEN_MARKER}`);
  if (at === -1) return json;
  let out = '';
  let from = 0;
  while (at !== -1) {
    // The stand-in is a whole JSON string: read back, it is the marker and the text.
    const end = stringEnd(json, at);
    out += json.slice(from, at) + (JSON.parse(json.slice(at, end)) as string).slice(MARKER.length);
    from = end;
    at = json.indexOf(`"${WRITTEN_MARKER}`, end);
  }
  return out + json.slice(from);
}
