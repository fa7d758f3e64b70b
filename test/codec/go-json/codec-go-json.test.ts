// JSON and times written as Go writes them (spec §4, §4.5), and how a coded error names its place:
// byte-identical records and one-line messages depend on both.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError, InvalidInputError } from '../../../src/errors/index.js';
import { goJson, goJsonIndented, goTime } from '../../../src/codec/go-json/go-json.js';
import { operationHash } from '../../../src/codec/operations/operation-hash.js';

describe("Go's JSON", () => {
  it('escapes <, >, &, U+2028 and U+2029 inside strings, as four hex digits, and nothing else', () => {
    expect(goJson({ html: '<a href="x">&</a>', lines: '\u2028\u2029', plain: 'é你🌏' })).toBe(
      '{"html":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e","lines":"\\u2028\\u2029","plain":"é你🌏"}',
    );
  });

  it('indents by two spaces and ends files with a newline', () => {
    expect(goJsonIndented({ a: [1], b: '<' })).toBe('{\n  "a": [\n    1\n  ],\n  "b": "\\u003c"\n}\n');
  });

  it('writes times in UTC without trailing zeros of the fraction, and passes strings through', () => {
    expect(goTime(new Date('2026-12-01T09:00:00.000Z'))).toBe('2026-12-01T09:00:00Z');
    expect(goTime(new Date('2026-12-01T09:00:00.120Z'))).toBe('2026-12-01T09:00:00.12Z');
    expect(goTime(new Date('2026-12-01T09:00:00.123Z'))).toBe('2026-12-01T09:00:00.123Z');
    expect(goTime(new Date('2026-12-01T09:00:00.100Z'))).toBe('2026-12-01T09:00:00.1Z');
    expect(goTime('2026-12-01T09:00:00.123456789Z')).toBe('2026-12-01T09:00:00.123456789Z');
  });
});

describe("Reasonix's operation hash", () => {
  it('covers the session, the turn, each kind, the optional flag and the payload bytes, and nothing else', () => {
    const base = operationHash('s', 't', [{ kind: 'k', payload: Buffer.from('{"a":1}') }]);
    const text = '{"sessionId":"s","turnId":"t","events":[{"kind":"k","payload":{"a":1}}]}';
    expect(base).toBe(createHashHex(text));
    expect(
      operationHash('s', undefined, [{ kind: 'k' }, { kind: 'o', optional: true, payload: new Uint8Array() }]),
    ).toBe(createHashHex('{"sessionId":"s","turnId":"","events":[{"kind":"k"},{"kind":"o","optional":true}]}'));
    expect(operationHash('s', 't', [{ kind: 'k', optional: false, payload: Buffer.from('{"a":1}') }])).toBe(base);
  });
});

describe('a coded error', () => {
  it('names its file and offset before its message, on one line', () => {
    const error = new DamagedStoreError('nested v4 batch at 7', { file: '/s/events.frames', offset: 7 });
    expect(error.describe()).toBe('/s/events.frames at offset 7: nested v4 batch at 7');
    expect(new DamagedStoreError('bad', { offset: 0 }).describe()).toBe('offset 0: bad');
    expect(new DamagedStoreError('bad', { file: 'f' }).describe()).toBe('f: bad');
    expect(new InvalidInputError('bad').describe()).toBe('bad');
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'RX_DAMAGED_STORE',
      family: 'damaged',
      message: 'nested v4 batch at 7',
      data: { file: '/s/events.frames', offset: 7 },
    });
    expect(error.name).toBe('DamagedStoreError');
  });
});

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
