import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { goInt, goPointer, goRaw, goSlice, goString, goStruct, goUint } from '../../../src/codec/go-json/go-decode.js';
import { parseGoJsonText } from '../../../src/codec/go-json/go-text.js';
import { goRfc3339 } from '../../../src/codec/go-json/go-time.js';
import {
  goLiterals,
  goLiteralFields,
  goLiteralFieldsOf,
  goLiteralRefusal,
  goLiteralRefusalOfBytes,
  goLiteralRefusalOfParsed,
} from '../../../src/codec/go-json/go-literals.js';

describe('numbers written with a fraction or an exponent, found in JSON text', () => {
  // Integer fields at every path the texts below have, and one above another (`a` and `a.bc.d`).
  const paths = ['a', 'a.bc.d', 'a.d', 'b', 'b.d', 'c', 'key', 'm', 'n', 's', 'size', 't', 'tru', 'x', 'y'];
  const fields = goLiteralFields(Object.fromEntries(paths.map((path) => [path, 'int64'])));

  it.each([
    ['{"a":1,"b":true,"c":false,"d":null,"e":"1.0 and 1e2"}', []],
    ['{"a":1.0}', [{ name: 'a', literal: '1.0' }]],
    ['{"A":{"Bc":[1,{"d":-2E+3}]}}', [{ name: 'a.bc.d', literal: '-2E+3' }]],
    [
      '[1e2,{"x":[3.5],"y":0.5}]',
      [
        { name: 'x', literal: '3.5' },
        { name: 'y', literal: '0.5' },
      ],
    ],
    ['{"x" : 1.0}', [{ name: 'x', literal: '1.0' }]],
    [
      '{"n":9.5,"m":90e1}',
      [
        { name: 'n', literal: '9.5' },
        { name: 'm', literal: '90e1' },
      ],
    ],
    [
      '{"a":["x",1.5],"b":{"c":"y","d":2.0}}',
      [
        { name: 'a', literal: '1.5' },
        { name: 'b.d', literal: '2.0' },
      ],
    ],
    ['{"a":[1, 2,3e0]}', [{ name: 'a', literal: '3e0' }]],
    // A string after a comma in a list is a value, never a key of the path.
    ['{"a":[1,"x",{"d":2.0}]}', [{ name: 'a.d', literal: '2.0' }]],
    ['{"s":"[1, 2.5]","t":", 3.5"}', []],
    ['{"s":"a \\\\\\" 1.0 \\\\","n":10e-1}', [{ name: 'n', literal: '10e-1' }]],
    [
      '{"k\\u0065y":1.5,"\\u017fize":2.0}',
      [
        { name: 'key', literal: '1.5' },
        { name: 'size', literal: '2.0' },
      ],
    ],
    ['{"a":{"b":1},"c":0.5}', [{ name: 'c', literal: '0.5' }]],
    ['{"tru":1,"x":[true,false]}', []],
    [
      '{"a":1234567890123456789,"b":-999999999999999999,"c":[18446744073709551616]}',
      [
        { name: 'a', literal: '1234567890123456789' },
        { name: 'c', literal: '18446744073709551616' },
      ],
    ],
  ])('%s', (text, expected) => {
    expect(goLiterals(text, fields).map(({ field, literal }) => ({ name: field.name, literal }))).toEqual(expected);
  });

  it("a whole-number field written so is refused in Go's words; the same number elsewhere is not", () => {
    const fields = goLiteralFields({ firstSeq: 'uint64', 'event.seq': 'uint64' });
    expect(goLiteralRefusal('{"firstSeq":5.0}', fields)).toBe(
      'firstSeq: cannot unmarshal number 5.0 into Go value of type uint64',
    );
    expect(goLiteralRefusal('{"FIRSTSEQ":5e0}', fields)).toBe(
      'firstSeq: cannot unmarshal number 5e0 into Go value of type uint64',
    );
    expect(goLiteralRefusal('{"event":{"seq":1E1}}', fields)).toBe(
      'event.seq: cannot unmarshal number 1E1 into Go value of type uint64',
    );
    expect(goLiteralRefusal('{"seq":1.0,"event":{"firstSeq":2.0},"firstSeq":5}', fields)).toBeUndefined();
    // A key holding a dot is a key of its own, which Go ignores: not the field inside `event`.
    expect(goLiteralRefusal('{"event.seq":1.5,"Event.Seq":2e0,"event":{"seq.x":1.5}}', fields)).toBeUndefined();
    // Past the type's range as written: Go refuses it; a double cannot tell 2^64 - 1 from 2^64.
    expect(goLiteralRefusal('{"firstSeq":18446744073709551616}', fields)).toBe(
      'firstSeq: cannot unmarshal number 18446744073709551616 into Go value of type uint64',
    );
    expect(goLiteralRefusal('{"firstSeq":18446744073709551615}', fields)).toBeUndefined();
    expect(goLiteralRefusal('{"firstSeq":-1000000000000000000}', fields)).toBe(
      'firstSeq: cannot unmarshal number -1000000000000000000 into Go value of type uint64',
    );
    const ints = goLiteralFields({ n: 'int64', m: 'int' });
    expect(goLiteralRefusal('{"n":9223372036854775807,"m":-9223372036854775808}', ints)).toBeUndefined();
    expect(goLiteralRefusal('{"n":9223372036854775808}', ints)).toBe(
      'n: cannot unmarshal number 9223372036854775808 into Go value of type int64',
    );
    expect(goLiteralRefusal('{"m":-9223372036854775809}', ints)).toBe(
      'm: cannot unmarshal number -9223372036854775809 into Go value of type int',
    );
  });

  it('the integer fields of a Go struct are found in its schema, through pointers, slices and nested structs, not inside any JSON', () => {
    const inner = goStruct({ exitCode: goPointer(goInt), name: goString }, 'refuse');
    const schema = goStruct(
      {
        seq: goUint,
        items: goSlice(goStruct({ n: goInt }, 'refuse')),
        inner: goPointer(inner),
        ids: goSlice(goUint),
        raw: goRaw,
        text: goString,
        plain: z.number(),
      },
      'refuse',
    );
    const fields = goLiteralFieldsOf(schema);
    expect(Object.fromEntries(fields.list.map(({ name, folded, type }) => [name, { folded, type }]))).toEqual({
      seq: { folded: ['seq'], type: 'uint64' },
      'items.n': { folded: ['items', 'n'], type: 'int64' },
      'inner.exitCode': { folded: ['inner', 'exitcode'], type: 'int64' },
      ids: { folded: ['ids'], type: 'uint64' },
    });
    const refusal = (text: string) => goLiteralRefusalOfBytes(Buffer.from(text), fields);
    expect(refusal('{"ids":[1,2.0]}')).toBe('ids: cannot unmarshal number 2.0 into Go value of type uint64');
    expect(refusal('{"Inner":{"exitCode":0.0},"text":"é 1.5"}')).toBe(
      'inner.exitCode: cannot unmarshal number 0.0 into Go value of type int64',
    );
    expect(refusal('{"items":[{"n":1},{"n":2E0}]}')).toBe(
      'items.n: cannot unmarshal number 2E0 into Go value of type int64',
    );
    // A key Go folds to the field's name is the field, whatever bytes spell it.
    expect(refusal('{"\u017feq":1.5}')).toBe('seq: cannot unmarshal number 1.5 into Go value of type uint64');
    expect(refusal('{"ſeq":1.5}')).toBe('seq: cannot unmarshal number 1.5 into Go value of type uint64');
    expect(refusal('{"raw":{"seq":1.0,"l":[2.0]},"text":"[1.5], 2.5","seq":1}')).toBeUndefined();
    expect(goLiteralRefusalOfBytes(Buffer.from('{"seq":1.0}'), goLiteralFields({}))).toBeUndefined();
  });

  it('a parsed payload is searched only when one of its integer fields holds a number, in a list too', () => {
    const schema = goStruct({ seq: goUint, items: goSlice(goStruct({ n: goInt }, 'refuse')), raw: goRaw }, 'refuse');
    const fields = goLiteralFieldsOf(schema);
    const refusal = (text: string) => goLiteralRefusalOfParsed(Buffer.from(text), parseGoJsonText(text), fields);
    expect(refusal('{"SEQ":1.0}')).toBe('seq: cannot unmarshal number 1.0 into Go value of type uint64');
    expect(refusal('{"seq":1,"items":[{"n":1},{"N":2.0}]}')).toBe(
      'items.n: cannot unmarshal number 2.0 into Go value of type int64',
    );
    expect(refusal('{"items":[{},{"n":3e0}]}')).toBe(
      'items.n: cannot unmarshal number 3e0 into Go value of type int64',
    );
    // Go keeps a number when null follows it for a field of a plain type: the number is still looked at.
    expect(refusal('{"seq":2.0,"Seq":null}')).toBe('seq: cannot unmarshal number 2.0 into Go value of type uint64');
    // A later key that makes the field null, or its list shorter, leaves the number Go refused before it.
    expect(refusal('{"items":[{"n":1.0}],"items":null}')).toBe(
      'items.n: cannot unmarshal number 1.0 into Go value of type int64',
    );
    expect(refusal('{"items":[{"n":1e0}],"ITEMS":[]}')).toBe(
      'items.n: cannot unmarshal number 1e0 into Go value of type int64',
    );
    expect(refusal('{"raw":{"seq":1.0},"items":[]}')).toBeUndefined();
    expect(refusal('{"seq":1,"items":[{"n":5}]}')).toBeUndefined();
  });

  it('a nil struct or a list of nils on the way to an integer field holds no number, and is no error', () => {
    const inner = goStruct({ exitCode: goPointer(goInt) }, 'refuse');
    const schema = goStruct({ inner: goPointer(inner), items: goSlice(goPointer(inner)) }, 'refuse');
    const fields = goLiteralFieldsOf(schema);
    const refusal = (text: string) => goLiteralRefusalOfParsed(Buffer.from(text), parseGoJsonText(text), fields);
    expect(refusal('{"inner":null,"items":[null,{"exitCode":null}]}')).toBeUndefined();
    expect(refusal('{"inner":null,"items":[null,{"exitCode":1.0}]}')).toBe(
      'items.exitCode: cannot unmarshal number 1.0 into Go value of type int64',
    );
  });
});

describe('times as written: an escape Go does not undo', () => {
  const fields = goLiteralFieldsOf(
    goStruct({ createdAt: goRfc3339, turn: goPointer(goStruct({ startedAt: goRfc3339 }, 'keep')), n: goInt }, 'keep'),
  );

  it('a time field holding an escape is refused in the words of Go’s parse of its text', () => {
    expect(goLiteralRefusal('{"createdAt":"2026-11-30T06:48:48\\u002e5Z"}', fields)).toBe(
      'createdAt: parsing time "2026-11-30T06:48:48\\\\u002e5Z" as "2006-01-02T15:04:05Z07:00"',
    );
    expect(goLiteralRefusal('{"TURN":{"StartedAt":"\\u0032026-11-30T06:48:48Z"}}', fields)).toMatch(
      /^turn\.startedAt: parsing time /,
    );
    const bytes = (text: string) => goLiteralRefusalOfBytes(Buffer.from(text), fields);
    expect(bytes('{"x":"é","createdAt":"2026-11-30T06:48:48\\/"}')).toMatch(/^createdAt: parsing time /);
    const parsed = (text: string) => goLiteralRefusalOfParsed(Buffer.from(text), parseGoJsonText(text), fields);
    expect(parsed('{"createdAt":"2026-11-30T06:48:48\\u005a"}')).toMatch(/^createdAt: parsing time /);
  });

  it('an escape elsewhere is read: in a key, in another string, in a key holding a dot, a time written plainly', () => {
    for (const text of [
      '{"created\\u0041t":"2026-11-30T06:48:48Z","n":1}',
      '{"createdAt":"2026-11-30T06:48:48Z","title":"a \\"quote\\" \\u00e9"}',
      '{"turn.startedAt":"\\u0030","turn":{"id":"\\n"}}',
      '{"n":"\\u0031","createdAt":"2026-11-30T06:48:48Z"}',
    ])
      expect(goLiteralRefusal(text, fields), text).toBeUndefined();
  });
});

// The decoded value's side of the same rule: what a Go int or uint64 field holds once the text is a double.
describe('Go integer fields, as doubles', () => {
  const takes = (schema: z.ZodType, value: number) => schema.safeParse(value).success;

  it("int: whole numbers from -2^63 to 2^63 (int64's largest, 2^63 - 1, is 2^63 as a double)", () => {
    for (const value of [0, -1, 2 ** 53 + 2, -(2 ** 63), 2 ** 63])
      expect(takes(goInt, value), String(value)).toBe(true);
    // The doubles next to each end (2^63's neighbours are 1,024 and 2,048 away), a fraction, the largest finite double.
    for (const value of [1.5, -0.5, -(2 ** 63) - 2048, 2 ** 63 + 2048, Number.MAX_VALUE])
      expect(takes(goInt, value), String(value)).toBe(false);
  });

  it('uint64: whole numbers from 0 to 2^64, never -0', () => {
    for (const value of [0, 1, 2 ** 63, 2 ** 64]) expect(takes(goUint, value), String(value)).toBe(true);
    for (const value of [-1, -0, 0.5, 2 ** 64 + 4096]) expect(takes(goUint, value), String(value)).toBe(false);
  });
});
