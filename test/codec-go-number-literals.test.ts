import { describe, expect, it } from 'vitest';
import { fractionLiterals, wholeNumberFields, wholeNumberRefusal } from '../src/codec/go-number-literals.js';

describe('numbers written with a fraction or an exponent, found in JSON text', () => {
  it.each([
    ['{"a":1,"b":true,"c":false,"d":null,"e":"1.0 and 1e2"}', []],
    ['{"a":1.0}', [{ path: 'a', literal: '1.0' }]],
    ['{"A":{"Bc":[1,{"d":-2E+3}]}}', [{ path: 'a.bc.d', literal: '-2E+3' }]],
    ['[1e2,{"x":[3.5],"y":0.5}]', [{ path: 'y', literal: '0.5' }]],
    ['{"x" : 1.0}', [{ path: 'x', literal: '1.0' }]],
    ['{"n":9.5,"m":90e1}', [{ path: 'n', literal: '9.5' }, { path: 'm', literal: '90e1' }]],
    ['{"a":["x",1.5],"b":{"c":"y","d":2.0}}', [{ path: 'b.d', literal: '2.0' }]],
    ['{"s":"a \\\\\\" 1.0 \\\\","n":10e-1}', [{ path: 'n', literal: '10e-1' }]],
    ['{"k\\u0065y":1.5,"\\u017fize":2.0}', [{ path: 'key', literal: '1.5' }, { path: 'size', literal: '2.0' }]],
    ['{"a":{"b":1},"c":0.5}', [{ path: 'c', literal: '0.5' }]],
    ['{"tru":1,"x":[true,false]}', []],
  ])('%s', (text, expected) => {
    expect(fractionLiterals(text)).toEqual(expected);
  });

  it('a whole-number field written so is refused in Go\'s words; the same number elsewhere is not', () => {
    const fields = wholeNumberFields({ firstSeq: 'uint64', 'event.seq': 'uint64' });
    expect(wholeNumberRefusal('{"firstSeq":5.0}', fields)).toBe('firstSeq: cannot unmarshal number 5.0 into Go value of type uint64');
    expect(wholeNumberRefusal('{"FIRSTSEQ":5e0}', fields)).toBe('firstSeq: cannot unmarshal number 5e0 into Go value of type uint64');
    expect(wholeNumberRefusal('{"event":{"seq":1E1}}', fields)).toBe('event.seq: cannot unmarshal number 1E1 into Go value of type uint64');
    expect(wholeNumberRefusal('{"seq":1.0,"event":{"firstSeq":2.0},"firstSeq":5}', fields)).toBeUndefined();
  });
});
