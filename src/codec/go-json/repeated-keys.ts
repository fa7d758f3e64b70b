import { setOwnKey } from './json-object.js';
import { isEscaped, isJsonSpace, stringEnd } from './json-strings.js';

/**
 * A key written more than once in one JSON object. `JSON.parse` keeps the last value; Go's decoder applies
 * every key in the order written, so a struct's field takes the second value decoded into the first
 * (`"local_only":true,"local_only":null` is true, a second list of calls decodes into the first's elements),
 * and a value of the wrong type under the first is refused whatever the second holds (measured with Reasonix
 * 1.38.11). An object parsed from such text keeps its keys and values as written beside it, for `writtenKeys`.
 */
const WRITTEN = Symbol('the keys and values of a JSON object in the order written, a repeated key each time');

/** The keys and values of a parsed object as written, a repeated key each time, side by side. */
export interface WrittenKeys {
  keys: readonly string[];
  values: readonly unknown[];
}

/** The keys of `object` as written when one was written more than once; undefined when none was. */
export function repeatedKeysOf(object: object): WrittenKeys | undefined {
  return (object as { [WRITTEN]?: WrittenKeys })[WRITTEN];
}

/** The keys and values of a parsed object as written: each time a repeated key was written, otherwise its own. */
export function writtenKeys(object: Record<string, unknown>): WrittenKeys {
  const repeated = repeatedKeysOf(object);
  if (repeated !== undefined) return repeated;
  const keys = Object.keys(object);
  return { keys, values: keys.map((key) => object[key]) };
}

/**
 * Whether `value`, `JSON.parse`'s of `text`, may have lost a repeated key: the text has more strings followed
 * by a colon than the value has keys. Every key is such a string, so none is missed; a string value that
 * begins with a colon counts too, and sends its text the slow way for nothing. One search for each colon
 * and a walk of the value: a tenth of what the parse took.
 */
export function mayHaveRepeatedKey(text: string, value: unknown): boolean {
  return value !== null && typeof value === 'object' && stringsBeforeColons(text) > keysIn(value);
}

function stringsBeforeColons(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) {
    let before = at - 1;
    while (isJsonSpace(text.charCodeAt(before))) before -= 1;
    if (text.charCodeAt(before) === QUOTE && !isEscaped(text, before)) count += 1;
  }
  return count;
}

function keysIn(root: object): number {
  let count = 0;
  const stack: object[] = [root];
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    // `for…in` is the fastest walk of a parsed object's keys; JSON.parse's objects inherit none.
    for (const key in value) {
      count += 1;
      const item = (value as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return count;
}

/**
 * `text` (valid JSON) with every key made unique: the number of its place among the text's keys, after a NUL,
 * at its end. `JSON.parse` then keeps every key, in the order written; `keptRepeatedKeys` takes the numbers
 * off again.
 */
export function withKeysNumbered(text: string): string {
  const parts: string[] = [];
  let from = 0;
  let number = 0;
  // Outside a string the only quotes are strings' openings.
  for (let at = text.indexOf('"'); at >= 0; ) {
    const end = stringEnd(text, at);
    let next = end;
    while (isJsonSpace(text.charCodeAt(next))) next += 1;
    if (text.charCodeAt(next) === COLON) {
      parts.push(text.slice(from, end - 1), `\\u0000${number}`);
      number += 1;
      from = end - 1;
    }
    at = text.indexOf('"', end);
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * The value `JSON.parse` gives of the text `numbered` was made from (`withKeysNumbered`), each object that had
 * a key more than once keeping its keys and values as written beside it. Walked with a stack of its own: the
 * value may nest as deep as Go reads.
 */
export function keptRepeatedKeys(numbered: unknown): unknown {
  if (numbered === null || typeof numbered !== 'object') return numbered;
  const root = emptyLike(numbered);
  const stack: [from: object, into: object][] = [[numbered, root]];
  while (stack.length > 0) {
    const [from, into] = stack.pop()!;
    const copied = (item: unknown): unknown => {
      if (item === null || typeof item !== 'object') return item;
      const copy = emptyLike(item);
      stack.push([item, copy]);
      return copy;
    };
    if (Array.isArray(from)) {
      for (const item of from) (into as unknown[]).push(copied(item));
      continue;
    }
    const object = into as Record<string, unknown>;
    const keys: string[] = [];
    const values: unknown[] = [];
    for (const numberedKey of Object.keys(from)) {
      const key = numberedKey.replace(KEY_NUMBER, '');
      const value = copied((from as Record<string, unknown>)[numberedKey]);
      keys.push(key);
      values.push(value);
      // As `JSON.parse` sets it: a repeated key keeps its first place and takes the last value.
      setOwnKey(object, key, value);
    }
    if (Object.keys(object).length < keys.length)
      Object.defineProperty(object, WRITTEN, { value: { keys, values } satisfies WrittenKeys });
  }
  return root;
}

const emptyLike = (value: object): object => (Array.isArray(value) ? [] : {});

/** The number `withKeysNumbered` put at a key's end: the last NUL of the key and the digits after it. */
const KEY_NUMBER = /\u0000\d+$/;

const QUOTE = 0x22;
const COLON = 0x3a;
