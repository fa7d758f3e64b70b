import { describe, expect, it } from 'vitest';
import { jsonText, stringifyWithOwnStack } from '../../../src/codec/go-json/json-text.js';
import { goJson, goJsonIndented } from '../../../src/codec/go-json/go-json.js';

/** A value nested `depth` arrays deep around `inner`. */
function nestedArrays(depth: number, inner: unknown = 'x'): unknown {
  let value = inner;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}

describe('JSON text of a value of any depth', () => {
  it("is JSON.stringify's text wherever that has one, compact or indented", () => {
    const values: unknown[] = [
      { a: 1, b: [true, null, 'x"\\\u2028<'], c: { d: {}, e: [] }, u: undefined, f: () => 1, n: NaN, i: -0 },
      [undefined, () => 1, Symbol('s'), 1.5e300, { toJSON: () => 'as json' }, new Date(0)],
      'text',
      12,
      null,
      true,
      [],
      {},
      { __proto__: null, x: [[{ y: [1, { z: 'deep' }] }]] },
    ];
    // Deep enough to matter, shallow enough for JSON.stringify to answer too.
    values.push(nestedArrays(2_000, { a: [1, { b: null }] }));
    for (const value of values) {
      for (const indent of [0, 2]) {
        expect(jsonText(value, indent)).toBe(JSON.stringify(value, null, indent));
        expect(stringifyWithOwnStack(value, indent)).toBe(JSON.stringify(value, null, indent));
      }
    }
  });

  it("refuses what JSON.stringify refuses for another reason than depth, with JSON.stringify's error", () => {
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonText(cycle)).toThrow(/circular/);
  });

  it('writes what JSON.stringify cannot (past about 4,000 levels), as the same text a shallower one would have', () => {
    const deep = nestedArrays(10_000, { k: ['v', undefined] });
    // JSON.stringify overflows the stack on this one under Node's default stack size (not in every runner).
    const text = jsonText(deep);
    expect(text).toBe(`${'['.repeat(10_000)}{"k":["v",null]}${']'.repeat(10_000)}`);
    // Indented as JSON.stringify indents: each level two spaces further in.
    const lines = jsonText(nestedArrays(5_000, 7), 2).split('\n');
    expect(lines).toHaveLength(2 * 5_000 + 1);
    expect(lines[1]).toBe('  [');
    expect(lines[5_000]).toBe(`${' '.repeat(2 * 5_000)}7`);
    expect(lines.at(-1)).toBe(']');
    // Objects too, and Go's escaping on top.
    let object: unknown = { end: '<&>' };
    for (let level = 0; level < 6_000; level += 1) object = { o: object };
    expect(goJson(object)).toBe(`${'{"o":'.repeat(6_000)}{"end":"\\u003c\\u0026\\u003e"}${'}'.repeat(6_000)}`);
    expect(goJsonIndented(object).endsWith('}\n')).toBe(true);
  });
});
