import { jsonText } from '../index.js';

/**
 * What JSON.stringify leaves raw that a terminal acts on: DEL, C1 controls (a lone 0x9b is a CSI),
 * line and paragraph separators, bidirectional overrides and isolates. C0 controls it escapes itself.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A value as the JSON `--json` and `cat` print: the same value a parser reads back, with every
 * control character written as `\uXXXX` so that printing it on a terminal is safe. Such characters
 * only occur inside strings in JSON text, where `\uXXXX` means the same character. Values of any
 * depth (Reasonix reads JSON nested 10,000 deep; V8's stringify recurses).
 */
export function jsonOutput(value: unknown, indent = 0): string {
  return terminalSafeJson(jsonText(value, indent));
}

/** JSON text (a document, or JSON lines) with the controls JSON.stringify and Go leave raw written as `\uXXXX`: the same values. */
export function terminalSafeJson(json: string): string {
  return json.replace(RAW_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
