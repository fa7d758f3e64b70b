import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { goBool, goMap, goSlice, goString, goStruct } from '../../../src/codec/go-json/go-decode.js';
import { parseGoJsonText } from '../../../src/codec/go-json/go-text.js';
import { writtenKeys } from '../../../src/codec/go-json/repeated-keys.js';

/** A JSON value with each object's keys as written, a repeated key each time: what Go's decoder walks. */
type Written = null | boolean | number | string | Written[] | { entries: [string, Written][] };

/**
 * JSON read by another route, a recursive descent over the text that keeps every key as written (the text is
 * valid JSON: `JSON.parse` read it first).
 */
function writtenByAnotherRoute(text: string): Written {
  let at = 0;
  const space = () => {
    while (/[ \t\n\r]/.test(text[at] ?? '')) at += 1;
  };
  const value = (): Written => {
    space();
    const char = text[at];
    if (char === '{') {
      at += 1;
      const entries: [string, Written][] = [];
      space();
      if (text[at] === '}') {
        at += 1;
        return { entries };
      }
      for (;;) {
        space();
        const key = value() as string;
        space();
        at += 1; // the colon
        entries.push([key, value()]);
        space();
        if (text[at++] === '}') return { entries };
      }
    }
    if (char === '[') {
      at += 1;
      const items: Written[] = [];
      space();
      if (text[at] === ']') {
        at += 1;
        return items;
      }
      for (;;) {
        items.push(value());
        space();
        if (text[at++] === ']') return items;
      }
    }
    const literal = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at))![0];
    at += literal.length;
    return JSON.parse(literal) as Written;
  };
  return value();
}

/** What rxstore's parse keeps, in the same shape: each object's keys as `writtenKeys` gives them. */
function written(value: unknown): Written {
  if (Array.isArray(value)) return value.map(written);
  if (value === null || typeof value !== 'object') return value as Written;
  const { keys, values } = writtenKeys(value as Record<string, unknown>);
  return { entries: keys.map((key, at) => [key, written(values[at])]) };
}

/** A small random generator, seeded, so a failure can be run again. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

const KEYS = ['a', 'A', 'b', '2', '__proto__', 'k:', ':k', 'q\\"', 'x\\\\', '\\u0061', 'é', ''];
const STRINGS = ['"s"', '":"', '"\\":1"', '"a\\\\"', '" :"', '"{\\"a\\":1,\\"a\\":2}"'];
const SPACES = ['', ' ', '\n', '\t ', '\r\n'];

function randomJson(next: (below: number) => number, depth: number): string {
  const space = () => SPACES[next(SPACES.length)]!;
  const kind = depth > 3 ? next(3) : next(5);
  if (kind === 0) return STRINGS[next(STRINGS.length)]!;
  if (kind === 1) return ['1', '-0', '2.5e3', 'true', 'null'][next(5)]!;
  if (kind === 2) return `[${Array.from({ length: next(3) }, () => randomJson(next, depth + 1)).join(',')}]`;
  const members = Array.from(
    { length: next(5) },
    () => `${space()}"${KEYS[next(KEYS.length)]}"${space()}:${space()}${randomJson(next, depth + 1)}${space()}`,
  );
  return `{${members.join(',')}}`;
}

describe('keys written more than once', () => {
  it('keeps every key of every object as written, and the value JSON.parse gives', () => {
    const next = random(20261205);
    for (let round = 0; round < 3_000; round += 1) {
      const text = randomJson(next, 0);
      const parsed = parseGoJsonText(text);
      expect(parsed, text).toEqual(JSON.parse(text));
      expect(written(parsed), text).toEqual(writtenByAnotherRoute(text));
    }
  });

  it('keeps a repeated key in its first place with its last value, as JSON.parse does', () => {
    const parsed = parseGoJsonText('{"b":1,"a":2,"b":3,"__proto__":4,"__proto__":{"x":5}}') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['b', 'a', '__proto__']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toEqual({ x: 5 });
    expect(parsed.b).toBe(3);
  });

  it('refuses a value nested past 10,000 levels under the first of a repeated key, as Go reads both', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(() => parseGoJsonText(`{"x":${nested(10_000)},"x":1}`)).toThrow(/exceeded max depth/);
    expect(parseGoJsonText(`{"x":${nested(9_998)},"x":1}`)).toEqual({ x: 1 });
  });

  it('makes a lone surrogate escape in a repeated key U+FFFD, as in any key', () => {
    const parsed = parseGoJsonText('{"\\ud800":1,"\\ud800":2}') as Record<string, unknown>;
    expect(writtenKeys(parsed)).toEqual({ keys: ['\ufffd', '\ufffd'], values: [1, 2] });
  });

  it('finds two keys that are one once their lone surrogates are U+FFFD, as Go reads them', () => {
    for (const text of ['{"\\ud800":1,"\\ufffd":2}', '{"\\udc00":1,"\\ud800":2}', '{"a\\ud800":1,"a\\udfff":2}'])
      expect(writtenKeys(parseGoJsonText(text) as Record<string, unknown>), text).toEqual({
        keys: [text.startsWith('{"a') ? 'a\ufffd' : '\ufffd', text.startsWith('{"a') ? 'a\ufffd' : '\ufffd'],
        values: [1, 2],
      });
  });

  const Struct = goStruct(
    {
      flag: goBool,
      text: goString,
      calls: goSlice(goStruct({ id: goString, name: goString }, 'refuse')),
      files: goMap(goSlice(goString)),
    },
    'refuse',
  );
  const decoded = (text: string) => Struct.safeParse(parseGoJsonText(text));

  it('decodes a struct field written twice as Go does: the second into what the first set', () => {
    expect(decoded('{"flag":true,"flag":null,"text":"x","text":null}').data).toEqual({ flag: true, text: 'x' });
    expect(decoded('{"calls":[{"id":"c","name":"bash"}],"calls":[{"name":"read"}]}').data).toEqual({
      calls: [{ id: 'c', name: 'read' }],
    });
    expect(decoded('{"calls":[{"id":"c"}],"calls":null}').data).toEqual({});
    expect(decoded('{"files":{"a":["1"]},"files":{"b":["2"]}}').data).toEqual({ files: { a: ['1'], b: ['2'] } });
  });

  it('refuses a value of the wrong type under the first of a repeated key, whatever the second holds', () => {
    expect(decoded('{"text":5,"text":"x"}').success).toBe(false);
    expect(decoded('{"calls":[{"bogus":1}],"calls":[]}').success).toBe(false);
    expect(decoded('{"files":{"a":5,"a":["1"]}}').success).toBe(false);
    expect(decoded('{"files":{"a":["1"],"a":["2"]}}').data).toEqual({ files: { a: ['2'] } });
  });

  it('leaves an object with no repeated key as JSON.parse gave it', () => {
    const plain = z.object({}).loose();
    const text = '{"a":":x","b":"\\":","c":{"d":" :"}}';
    expect(plain.parse(parseGoJsonText(text))).toEqual(JSON.parse(text));
    expect(writtenKeys(parseGoJsonText(text) as Record<string, unknown>).keys).toEqual(['a', 'b', 'c']);
  });
});
