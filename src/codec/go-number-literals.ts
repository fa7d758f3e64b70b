import { fold } from './go-decode.js';

/** A number in JSON text written with a fraction or an exponent (`1.0`, `1e2`), and where it is. */
export interface FractionLiteral {
  /** Object keys from the root, case-folded as Go matches them, joined by `.`; a list adds nothing. */
  path: string;
  literal: string;
}

/**
 * The numbers of a JSON text written with a fraction or an exponent. Go refuses such a literal for an
 * integer field even when its value is whole (`cannot unmarshal number 1.0 into … of type int64`), and
 * `JSON.parse` keeps no trace of how a number was written. Most texts have none, which one regular
 * expression tells; only the others are walked. The text must be valid JSON. Only the values of object
 * keys are found: a number in a list is no field's.
 */
export function fractionLiterals(text: string): FractionLiteral[] {
  return mayHaveFractionLiteral(text) ? walk(text) : [];
}

/**
 * Whether an object's value in `text` may be a number written with a fraction or an exponent: a
 * quote, a colon and such a number. One regular expression, so that records whose strings are long
 * cost little; inside a string a quote is escaped, which the look-behind leaves out. A number in a list
 * is no Go struct field's value and is not looked for.
 */
const MAY_HAVE_FRACTION = /(?<!\\)"\s*:\s*-?\d+(?:\.\d|[eE])/;

function mayHaveFractionLiteral(text: string): boolean {
  return MAY_HAVE_FRACTION.test(text);
}

const isDigit = (char: number) => char >= 0x30 && char <= 0x39;

/** The index after the closing quote of the string opening at `quote`. */
function stringEnd(text: string, quote: number): number {
  let close = quote;
  for (;;) {
    close = text.indexOf('"', close + 1);
    if (close === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return close + 1;
  }
}

/** Every number token, with the keys of the objects it is inside. */
function walk(text: string): FractionLiteral[] {
  const found: FractionLiteral[] = [];
  // One entry per open object (its current key) or list (undefined).
  const keys: (string | undefined)[] = [];
  let expectingKey = false;
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (char === '"') {
      const end = stringEnd(text, at);
      if (expectingKey) keys[keys.length - 1] = fold(JSON.parse(text.slice(at, end)) as string);
      at = end;
      continue;
    }
    if (char === '{') {
      keys.push('');
      expectingKey = true;
    } else if (char === '[') {
      keys.push(undefined);
      expectingKey = false;
    } else if (char === '}' || char === ']') {
      keys.pop();
    } else if (char === ',') {
      expectingKey = keys.at(-1) !== undefined;
    } else if (char === ':') {
      expectingKey = false;
    } else if (char === '-' || isDigit(char.charCodeAt(0))) {
      let end = at + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end += 1;
      const literal = text.slice(at, end);
      // An object's value only: a number in a list is no field's.
      if (/[.eE]/.test(literal) && keys.at(-1) !== undefined) found.push({ path: keys.filter((key) => key !== undefined).join('.'), literal });
      at = end;
      continue;
    }
    at += 1;
  }
  return found;
}

/** Go integer fields by their folded dotted path: the name to show and the Go type. */
export type WholeNumberFields = ReadonlyMap<string, { name: string; type: string }>;

/** `WholeNumberFields` from dotted field names as a struct spells them and their Go types. */
export function wholeNumberFields(fields: Record<string, string>): WholeNumberFields {
  return new Map(Object.entries(fields).map(([name, type]) => [name.split('.').map(fold).join('.'), { name, type }]));
}

/**
 * The first number in one of `fields` written with a fraction or an exponent, as Go's refusal of it;
 * undefined when there is none.
 */
export function wholeNumberRefusal(text: string, fields: WholeNumberFields): string | undefined {
  for (const { path, literal } of fractionLiterals(text)) {
    const field = fields.get(path);
    if (field) return `${field.name}: cannot unmarshal number ${literal} into Go value of type ${field.type}`;
  }
  return undefined;
}
