// A log cut shorter by someone else between repair's scan and its read of the torn tail: repair
// stops with a coded error and keeps no evidence of bytes it did not read. The cut is made in
// process at that moment: the second open of the log (the first is the scan's) truncates it first.
import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repairSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const shrink = vi.hoisted(() => ({ path: undefined as string | undefined, to: 0, opens: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open = (async (path: unknown, ...rest: unknown[]) => {
    if (path === shrink.path && (shrink.opens += 1) === 2) await fs.truncate(path as string, shrink.to);
    return (fs.open as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.open;
  return { ...fs, default: { ...fs, open }, open };
});

afterEach(() => {
  shrink.path = undefined;
  shrink.opens = 0;
});

describe('repair of a log that shrinks under it', () => {
  it('throws RX_DAMAGED_STORE naming the log and where, and keeps no evidence', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await cutLog(dir, 7);
    const torn = await readSession(dir);
    expect(torn.status).toBe('torn-tail');
    const durableEnd = torn.tornTail!.offset;
    Object.assign(shrink, { path: logOf(dir), to: durableEnd + 1 });
    await expect(repairSession(dir)).rejects.toMatchObject({
      code: 'RX_DAMAGED_STORE',
      message: expect.stringContaining('the log changed while it was repaired'),
      data: { file: logOf(dir), offset: durableEnd },
    });
    expect(shrink.opens).toBeGreaterThanOrEqual(2);
    expect((await readdir(dir)).filter((name) => name.includes('torn'))).toEqual([]);
    expect((await readFile(logOf(dir))).length).toBe(durableEnd + 1);
    // What is left is a torn tail of one byte, which a repair with nothing racing it cuts.
    shrink.path = undefined;
    expect((await repairSession(dir)).action).toBe('repaired');
  });
});
