import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { goText, parseGoJson, parseGoJsonText } from '../../../src/codec/go-json/go-text.js';

/**
 * Go's reading by another route: from each byte, the one whole UTF-8 character of 1 to 4 bytes that starts
 * there (Node's `isUtf8` judges it: shortest form, no surrogate, at most U+10FFFF), or U+FFFD for that byte.
 */
function goTextByAnotherRoute(bytes: Buffer): string {
  let text = '';
  for (let at = 0; at < bytes.length; ) {
    const width = [1, 2, 3, 4].find(
      (size) =>
        at + size <= bytes.length &&
        isUtf8(bytes.subarray(at, at + size)) &&
        [...bytes.toString('utf8', at, at + size)].length === 1,
    );
    text += width === undefined ? '\ufffd' : bytes.toString('utf8', at, at + width);
    at += width ?? 1;
  }
  return text;
}

/** Go's reading of text, character by character (the real Reasonix judges it in go-text-matches-reasonix). */
const codePoints = (text: string) => [...text].map((char) => char.codePointAt(0)!.toString(16));

describe('text read as Go reads it', () => {
  it('gives U+FFFD for each byte Go cannot take, and leaves valid UTF-8 as it is', () => {
    const cases: [number[], string[]][] = [
      [
        [0x41, 0xc3, 0xa9],
        ['41', 'e9'],
      ],
      [[0xe2, 0x82, 0xac], ['20ac']],
      [[0xf0, 0x9f, 0x98, 0x80], ['1f600']],
      [
        [0xe2, 0x82, 0x41],
        ['fffd', 'fffd', '41'],
      ],
      [
        [0xf0, 0x9f, 0x98, 0x41],
        ['fffd', 'fffd', 'fffd', '41'],
      ],
      [
        [0xf0, 0x9f, 0x98],
        ['fffd', 'fffd', 'fffd'],
      ],
      [
        [0xed, 0xa0, 0x80],
        ['fffd', 'fffd', 'fffd'],
      ],
      [[0xed, 0x9f, 0xbf], ['d7ff']],
      [
        [0xe0, 0x9f, 0x80],
        ['fffd', 'fffd', 'fffd'],
      ],
      [[0xe0, 0xa0, 0x80], ['800']],
      [
        [0xf0, 0x8f, 0xbf, 0xbf],
        ['fffd', 'fffd', 'fffd', 'fffd'],
      ],
      [[0xf4, 0x8f, 0xbf, 0xbf], ['10ffff']],
      [
        [0xf4, 0x90, 0x80, 0x80],
        ['fffd', 'fffd', 'fffd', 'fffd'],
      ],
      [[0xf3, 0xbf, 0xbf, 0xbf], ['fffff']],
      [[0xee, 0x80, 0x80], ['e000']],
      [
        [0xc0, 0x80],
        ['fffd', 'fffd'],
      ],
      [[0xc2, 0x80], ['80']],
      [
        [0xdf, 0xbf, 0xc1],
        ['7ff', 'fffd'],
      ],
      [
        [0xff, 0x41, 0x80],
        ['fffd', '41', 'fffd'],
      ],
      [
        [0xe1, 0x80, 0xc0, 0x41],
        ['fffd', 'fffd', 'fffd', '41'],
      ],
      [
        [0x41, 0xe2],
        ['41', 'fffd'],
      ],
    ];
    for (const [bytes, expected] of cases)
      expect(codePoints(goText(Buffer.from(bytes))), bytes.map((byte) => byte.toString(16)).join(' ')).toEqual(
        expected,
      );
  });

  it('agrees with another reading of UTF-8 on every lead byte and the continuation bytes at the edges of its ranges', () => {
    const edges = [
      0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5,
      0xff,
    ];
    const sequences: number[][] = [];
    for (let lead = 0x80; lead <= 0xff; lead += 1) {
      for (let second = 0; second <= 0xff; second += 1) sequences.push([lead, second]);
      for (const second of edges) for (const third of edges) sequences.push([lead, second, third]);
      if (lead >= 0xf0)
        for (const second of edges)
          for (const third of edges) for (const fourth of edges) sequences.push([lead, second, third, fourth]);
    }
    for (const sequence of sequences) {
      const bytes = Buffer.from([0x41, ...sequence]);
      expect(goText(bytes), sequence.map((byte) => byte.toString(16)).join(' ')).toBe(goTextByAnotherRoute(bytes));
    }
    // All of them in one text, so that what comes before a sequence is carried over as well.
    const all = Buffer.from(sequences.flat());
    expect(goText(all)).toBe(goTextByAnotherRoute(all));
  });

  it('makes every lone surrogate escape U+FFFD, \\uD800 to \\uDFFF in either case, and leaves other escapes as they are', () => {
    for (const high of ['d8', 'd9', 'da', 'db', 'dc', 'dd', 'de', 'df', 'D9', 'DA', 'DF']) {
      const escape = `\\u${high}42`;
      expect(parseGoJsonText(`{"k":"a${escape}b"}`), escape).toEqual({ k: 'a\ufffdb' });
      expect(parseGoJsonText(`"${escape}"`), escape).toBe('\ufffd');
    }
    for (const other of ['d742', 'e000', 'c842', '0041'])
      expect(parseGoJsonText(`"\\u${other}"`)).toBe(String.fromCharCode(parseInt(other, 16)));
  });

  it('makes a lone surrogate escape U+FFFD, in strings and keys, at any depth; a pair stays a pair', () => {
    expect(parseGoJson(Buffer.from('"\\ud800"'))).toBe('\ufffd');
    expect(parseGoJson(Buffer.from('"\\uDC00x"'))).toBe('\ufffdx');
    expect(parseGoJson(Buffer.from('"\\ud800\\ud800\\ude00"'))).toBe('\ufffd\u{10200}');
    expect(parseGoJson(Buffer.from('"\\ud83d\\ude00"'))).toBe('\u{1f600}');
    expect(parseGoJson(Buffer.from('{"a":[{"b\\udfff":"\\udbff"}],"n":1,"t":true,"z":null}'))).toEqual({
      a: [{ 'b\ufffd': '\ufffd' }],
      n: 1,
      t: true,
      z: null,
    });
    // A `__proto__` key stays an own key, as JSON.parse made it.
    const parsed = parseGoJsonText('{"__proto__":{"x":"\\ud800"}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toEqual({ x: '\ufffd' });
    // Without a surrogate escape nothing is walked: the parsed value is JSON.parse's own.
    expect(parseGoJsonText('{"a":"\\u00e9\\\\ud800"}')).toEqual({ a: '\u00e9\\ud800' });
  });

  it('refuses nesting past 10,000 levels as Go does, and reads 10,000 (judged in payload-rules and reasonix-jsonl-rules)', () => {
    const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
    expect(() => parseGoJsonText(nested(10_001))).toThrow(new SyntaxError("invalid character '[' exceeded max depth"));
    expect(() => parseGoJsonText(`[${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}]`)).toThrow(
      new SyntaxError("invalid character '{' exceeded max depth"),
    );
    expect(() => parseGoJsonText(nested(10_000))).not.toThrow();
    expect(() => parseGoJsonText(nested(5_000), 4_999)).toThrow(SyntaxError);
    expect(() => parseGoJsonText(nested(4_999), 4_999)).not.toThrow();
    // Deep and with lone surrogates: made well formed without running out of stack.
    const deep = parseGoJsonText(`${'['.repeat(9_000)}"\\ud800"${']'.repeat(9_000)}`);
    let inner: unknown = deep;
    for (let level = 0; level < 9_000; level += 1) inner = (inner as unknown[])[0];
    expect(inner).toBe('\ufffd');
  });

  it('keeps the order of keys when one of them changes', () => {
    expect(Object.keys(parseGoJsonText('{"a":1,"b\\udc00":2,"c":3}') as object)).toEqual(['a', 'b\ufffd', 'c']);
  });

  it('still refuses what is not JSON, invalid bytes outside a string included', () => {
    expect(() => parseGoJson(Buffer.from([0x7b, 0xff, 0x7d]))).toThrow(SyntaxError);
    expect(() => parseGoJson(Buffer.from('{"a":'))).toThrow(SyntaxError);
  });
});
