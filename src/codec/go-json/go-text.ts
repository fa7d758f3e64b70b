import { isUtf8 } from 'node:buffer';
import { keptRepeatedKeys, mayHaveRepeatedKey, withKeysNumbered } from './repeated-keys.js';

/**
 * JSON read as Go's `encoding/json` reads it into Reasonix's structs: a string's invalid UTF-8 is
 * U+FFFD for each byte Go's `utf8.DecodeRune` cannot take (one for each byte of a cut sequence,
 * where a WHATWG decoder gives one for the whole), and a `\u` escape of a surrogate without its
 * pair is U+FFFD (where `JSON.parse` keeps the lone surrogate). Measured with Reasonix 1.38.11:
 * the model is sent these characters (test/go-text-matches-reasonix).
 */
export function parseGoJson(bytes: Buffer): unknown {
  return parseGoJsonText(goText(bytes));
}

/**
 * JSON text (already decoded, as by `goText`) parsed with its lone surrogates made U+FFFD, and
 * refused past `maxDepth` levels of nesting as Go refuses it (10,000).
 */
export function parseGoJsonText(text: string, maxDepth = MAX_DEPTH): unknown {
  let value = parseJsonText(text);
  // Nesting past the limit takes one opening bracket a level and a closing one.
  if (text.length > 2 * maxDepth) refusePastMaxDepth(value, maxDepth);
  const surrogates = hasSurrogateEscape(text);
  if (surrogates) value = wellFormed(value);
  // A key written twice (or two that are one once their lone surrogates are U+FFFD), which Go applies each
  // time: parsed again with every key kept (repeated-keys.ts).
  if (!mayHaveRepeatedKey(text, value)) return value;
  const numbered = parseJsonText(withKeysNumbered(text));
  // Go reads every value of a key written twice: one nested too deep under the first is refused too.
  if (text.length > 2 * maxDepth) refusePastMaxDepth(numbered, maxDepth);
  return keptRepeatedKeys(surrogates ? wellFormed(numbered) : numbered);
}

/** The value with each lone surrogate U+FFFD, in place for an object or list. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd');
  makeWellFormed(value);
  return value;
}

/**
 * `JSON.parse`, its SyntaxError said without the text: V8 quotes up to ten characters of the input
 * (`Unexpected token 'r', "root:x:0:0"... is not valid JSON`), and an error must never echo a file's
 * contents (a link may have led the read to a file that is no session's).
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SyntaxError(jsonSyntaxMessage((error as Error).message));
  }
}

/**
 * V8's words for a JSON syntax error, kept where they say only where it is, or which character is
 * wrong (its quote of the text is not kept); otherwise that the text is not JSON. `goSyntaxError`
 * says them in Go's words.
 */
function jsonSyntaxMessage(message: string): string {
  if (/ JSON at position \d+(?: \(line \d+ column \d+\))?$/.test(message) || message === 'Unexpected end of JSON input')
    return message;
  const token = /^Unexpected token '(.)'/su.exec(message);
  return token ? `Unexpected token '${token[1]}'` : 'Unexpected token: not valid JSON';
}

/** Go's decoder refuses JSON nested deeper than this (`exceeded max depth`); Reasonix's payloads and transcript lines with it. */
export const MAX_DEPTH = 10_000;

/** Throws Go's error when the value nests deeper than Go reads; walked with a stack of its own. */
function refusePastMaxDepth(root: unknown, maxDepth: number): void {
  const stack: [value: unknown, depth: number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth)
      throw new SyntaxError(`invalid character '${Array.isArray(value) ? '[' : '{'}' exceeded max depth`);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a value pushed that is no object is skipped when it is taken (line 36)
    for (const item of Object.values(value))
      if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
  }
}

/** UTF-8 bytes as Go turns them into a string's characters: each byte of an invalid sequence is U+FFFD. */
export function goText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  let from = 0;
  let at = 0;
  while (at < bytes.length) {
    const width = runeWidth(bytes, at);
    if (width > 0) {
      at += width;
      continue;
    }
    text += `${bytes.toString('utf8', from, at)}\ufffd`;
    at += 1;
    from = at;
  }
  return text + bytes.toString('utf8', from, at);
}

/**
 * Whether the text holds a `\u` escape of a surrogate (`\uD800`–`\uDFFF`): only then can
 * `JSON.parse` give a lone one. A search for `\u` is several times faster than a regular expression.
 */
function hasSurrogateEscape(text: string): boolean {
  for (let at = text.indexOf('\\u'); at >= 0; at = text.indexOf('\\u', at + 2)) {
    // Lower-cased by setting bit 5: `d`, then `8`, `9` or `a`–`f`.
    // Stryker disable next-line ConditionalExpression: the quick look says a surrogate escape *may* be there more often: the walk then replaces none (speed only)
    if ((text.charCodeAt(at + 2) | 0x20) !== 0x64) continue;
    const next = text.charCodeAt(at + 3) | 0x20;
    // Stryker disable next-line LogicalOperator: says *may* more often (as line 68)
    if (next === 0x38 || next === 0x39 || (next >= 0x61 && next <= 0x66)) return true;
  }
  return false;
}

/** The width of the valid UTF-8 sequence at `at` (Go's `utf8.DecodeRune` ranges), 0 when it is invalid. */
function runeWidth(bytes: Buffer, at: number): number {
  const lead = bytes[at]!;
  // Stryker disable next-line EqualityOperator: a lone byte 0x80 taken as one character is then decoded by Node, which also gives U+FFFD for it
  if (lead < 0x80) return 1;
  const [width, low, high] =
    lead >= 0xc2 && lead <= 0xdf
      ? [2, 0x80, 0xbf]
      : lead === 0xe0
        ? [3, 0xa0, 0xbf]
        : lead === 0xed
          ? [3, 0x80, 0x9f]
          : lead >= 0xe1 && lead <= 0xef
            ? [3, 0x80, 0xbf]
            : lead === 0xf0
              ? [4, 0x90, 0xbf]
              : lead === 0xf4
                ? [4, 0x80, 0x8f]
                : lead >= 0xf1 && lead <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : [0, 0, 0];
  if (width === 0 || at + width > bytes.length) return 0;
  const second = bytes[at + 1]!;
  if (second < low || second > high) return 0;
  for (let next = at + 2; next < at + width; next += 1) if ((bytes[next]! & 0xc0) !== 0x80) return 0;
  return width;
}

/**
 * Makes every lone surrogate in the value's strings and keys U+FFFD, in place (the value is
 * JSON.parse's own), with a stack of its own: the value may nest as deep as Go reads.
 */
function makeWellFormed(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    // A key to change takes its place again in order: every key after it is put back after it.
    const from = keys.findIndex((key) => HAS_LONE_SURROGATE.test(key));
    // Stryker disable next-line ConditionalExpression,LogicalOperator: with no key to change, the last key is taken out and put back where it was
    if (from >= 0 && !Array.isArray(value)) {
      // Stryker disable next-line MethodExpression: every key taken out and put back in the same order
      const moved = keys.slice(from).map((key) => [key.replace(LONE_SURROGATE, '\ufffd'), object[key]] as const);
      for (const key of keys.slice(from)) delete object[key];
      // Defined, not assigned: a `__proto__` key stays a key, as JSON.parse made it.
      // Stryker disable next-line BooleanLiteral: a key put back not configurable: nothing deletes or redefines it afterwards
      for (const [key, item] of moved)
        Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
    for (const key of Object.keys(object)) {
      const item = object[key];
      if (typeof item === 'string') object[key] = item.replace(LONE_SURROGATE, '\ufffd');
      // Stryker disable next-line ConditionalExpression,LogicalOperator: as line 38
      else if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);
