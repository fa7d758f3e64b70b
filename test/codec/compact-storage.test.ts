import { describe, expect, it } from 'vitest';
import { OperationLedger } from '../../src/codec/operations/operation-ledger.js';
import {
  RecalledOperationLedger,
  type RecordedOperation,
} from '../../src/codec/operations/recalled-operation-ledger.js';
import { DamagedStoreError } from '../../src/errors/index.js';
import { StringTable } from '../../src/compact/string-table.js';

describe('the string table a replay keeps ids in', () => {
  it('gives every string back exactly, whatever its characters or length, and finds only what it holds', () => {
    const table = new StringTable();
    const strings = [
      '',
      'a',
      'msg-1',
      'é',
      '日本語',
      '😀',
      '\uD800',
      'x\uDC00y',
      'z'.repeat(300_000),
      'ÿ'.repeat(70_000),
      '日'.repeat(40_000),
    ];
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

describe('the operation ledger of a log read from a file', () => {
  const hash = (n: number) => n.toString(16).padStart(64, '0');
  /** A log of batches as the ledger sees it: each admitted operation at its offset, read back on request. */
  function logOf() {
    const written = new Map<number, RecordedOperation>();
    const recalls: number[] = [];
    let offset = 0;
    const recall = (at: number) => {
      recalls.push(at);
      return Promise.resolve(written.get(at)!);
    };
    const admit = async (ledger: RecalledOperationLedger, operationId: string, operationHash: string) => {
      offset += 100;
      written.set(offset, { operationId, operationHash });
      return ledger.admit(operationId, operationHash, offset);
    };
    return { recall, recalls, admit };
  }

  it('judges exactly even when every id has the same fingerprint: each earlier batch is read back', async () => {
    const log = logOf();
    const ledger = new RecalledOperationLedger(log.recall, 'log', () => [7, 7]);
    for (let n = 0; n < 50; n += 1) expect(await log.admit(ledger, `op-${n}`, hash(n))).toBeUndefined();
    expect(await log.admit(ledger, 'op-49', hash(49))).toBeUndefined();
    expect(await log.admit(ledger, 'op-0', hash(1))).toBe(hash(0));
    expect(await log.admit(ledger, 'op-new', hash(1))).toBeUndefined();
    expect(await log.admit(ledger, 'op-new', hash(2))).toBe(hash(1));
  });

  it('reads nothing back for ids it has not seen, and one batch back for a retried one', async () => {
    const log = logOf();
    const ledger = new RecalledOperationLedger(log.recall, 'log');
    for (let n = 0; n < 30_000; n += 1) expect(ledger.admit(`op-${n}`, hash(n), n)).toBeUndefined();
    expect(log.recalls).toEqual([]);
    const retried = new RecalledOperationLedger(log.recall, 'log');
    expect(await log.admit(retried, 'op-a', hash(1))).toBeUndefined();
    expect(await log.admit(retried, 'op-b', hash(2))).toBeUndefined();
    expect(await log.admit(retried, 'op-a', hash(1))).toBeUndefined();
    expect(await log.admit(retried, 'op-a', hash(3))).toBe(hash(1));
    expect(log.recalls).toEqual([100, 100]);
  });

  it('refuses a batch read back that no longer names the operation it held', async () => {
    const ledger = new RecalledOperationLedger(
      () => Promise.resolve({ operationId: 'op-other', operationHash: hash(1) }),
      'log',
    );
    expect(ledger.admit('op-a', hash(1), 40)).toBeUndefined();
    const error = await Promise.resolve(ledger.admit('op-a', hash(1), 90)).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as DamagedStoreError).message).toBe('v4 batch at 40 changed while the log was read');
    expect((error as DamagedStoreError).data).toMatchObject({ file: 'log', offset: 40 });
  });
});
