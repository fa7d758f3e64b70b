import { describe, expect, it } from 'vitest';
import { OperationLedger } from '../src/codec/operation-ledger.js';
import { StringTable } from '../src/compact/string-table.js';

describe('the string table a replay keeps ids in', () => {
  it('gives every string back exactly, whatever its characters or length, and finds only what it holds', () => {
    const table = new StringTable();
    const strings = ['', 'a', 'msg-1', 'é', '日本語', '😀', '\uD800', 'x\uDC00y', 'z'.repeat(300_000), 'ÿ'.repeat(70_000), '日'.repeat(40_000)];
    for (let n = 0; n < 20_000; n += 1) strings.push(`call_${n.toString(36)}`);
    const refs = strings.map((text) => table.intern(text));
    expect(table.size).toBe(strings.length);
    strings.forEach((text, index) => {
      expect(table.text(refs[index]!)).toBe(text);
      expect(table.find(text)).toBe(refs[index]);
      expect(table.intern(text)).toBe(refs[index]);
    });
    expect(table.find('not there')).toBe(-1);
    expect(table.find('msg-2')).toBe(-1);
    expect(table.size).toBe(strings.length);
  });
});

describe('the operation ledger', () => {
  const hash = (n: number) => n.toString(16).padStart(64, '0');

  it('admits a new id and the same id again with the same hash, and names the held hash of a conflict', () => {
    const ledger = new OperationLedger();
    expect(ledger.admit('turn-1', hash(1))).toBeUndefined();
    expect(ledger.admit('turn-1', hash(1))).toBeUndefined();
    expect(ledger.admit('turn-1', hash(2))).toBe(hash(1));
    // A hash not in Reasonix's hex form is kept as found.
    expect(ledger.admit('odd', 'NOT-HEX')).toBeUndefined();
    expect(ledger.admit('odd', 'not-hex')).toBe('NOT-HEX');
  });

  it('holds tens of thousands of operations, and a copy judges as the original without changing it', () => {
    const ledger = new OperationLedger();
    for (let n = 0; n < 30_000; n += 1) expect(ledger.admit(`op-${n}`, hash(n))).toBeUndefined();
    const copy = new OperationLedger(ledger);
    expect(copy.admit('op-29999', hash(0))).toBe(hash(29_999));
    expect(copy.admit('new', hash(7))).toBeUndefined();
    expect(ledger.admit('new', hash(8))).toBeUndefined();
    expect(copy.admit('new', hash(8))).toBe(hash(7));
  });
});
