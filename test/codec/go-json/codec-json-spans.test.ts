import { describe, expect, it } from 'vitest';
import { goJson } from '../../../src/codec/go-json/go-json.js';
import { compactJson, JsonSpan, jsonValueEnd } from '../../../src/codec/go-json/json-spans.js';
import { RawJson } from '../../../src/codec/go-json/raw-json.js';

describe('where a JSON value is in its text', () => {
  it('finds where a value ends, or that the text ends first', () => {
    const text = '{"a":"x\\"}","b":[1,{"c":"]"}]} tail';
    expect(jsonValueEnd(text, 0)).toBe(text.indexOf(' tail'));
    expect(jsonValueEnd('"ab\\"', 0)).toBeUndefined();
    expect(jsonValueEnd('[1,"]"', 0)).toBeUndefined();
    expect(jsonValueEnd('-1.5e3,', 0)).toBe(6);
    expect(jsonValueEnd('"\\\\"x', 0)).toBe(4);
  });

  it("gives an object's entries as written (a key twice, each time; keys decoded as Go decodes them) and a list's elements", () => {
    const span = new JsonSpan(' { "k" : 1 , "k":[ 2 ,"x"], "\\u006b2":{}, "\\ud800":null } ', 1, 57);
    expect(span.entries().map((entry) => [entry.key, entry.span.text])).toEqual([
      ['k', '1'],
      ['k', '[ 2 ,"x"]'],
      ['k2', '{}'],
      ['\ufffd', 'null'],
    ]);
    expect(
      span
        .entries()[1]!
        .span.items()
        .map((item) => item.text),
    ).toEqual(['2', '"x"']);
    expect(new JsonSpan('{}', 0, 2).entries()).toEqual([]);
    expect(new JsonSpan('[ ]', 0, 3).items()).toEqual([]);
    expect(new JsonSpan('5', 0, 1).items()).toEqual([]);
  });

  it('compacts white space between tokens, never inside a string', () => {
    expect(compactJson('{ "a b" :\n [ 1 ,\t"x\\" y" ] }')).toBe('{"a b":[1,"x\\" y"]}');
  });
});

describe('a raw text written as it is', () => {
  it('goJson writes a RawJson as its text, escaped as Go escapes the rest', () => {
    expect(goJson({ a: new RawJson('{"n":1.0,"s":"\\u00e9<"}'), b: [new RawJson('1e2')] })).toBe(
      '{"a":{"n":1.0,"s":"\\u00e9\\u003c"},"b":[1e2]}',
    );
  });

  it('a string that looks like the stand-in for a raw text is written as the string it is', () => {
    const lookalike = '\u0000rxstore-raw-000000000000000000000000:{"x":1}';
    expect(goJson({ content: lookalike })).toBe(JSON.stringify({ content: lookalike }));
  });
});
