// A log cut while salvage reads it (a copy put back over it with `cp`, which empties the file and writes
// it again) is not damage at the place the cut was seen: salvage says the log changed and writes nothing,
// where it once published a salvage of the bytes read before the cut with exit 0. The cut is made in
// process at the moment that tells: the first read, having reached the end of the bytes, asks the log's
// size again; the log is emptied for that question and written back whole at once.
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { salvageSession } from '../../../src/index.js';
import { copySession, editLog, framesOf, logOf } from '../../support/faults/faults.js';
import { copiedOver } from '../../support/faults/size-check-cut.js';
import { fixture } from '../../support/fixtures.js';

// Cut once, a copy put back over the log.
const cut = vi.hoisted(() => ({
  path: undefined as string | undefined,
  made: 0,
  atSecondCheck(fs: typeof import('node:fs'), fd: number) {
    if (this.made > 0) return undefined;
    this.made += 1;
    return copiedOver(fs, this.path!, fd);
  },
}));

vi.mock('node:fs', async (importOriginal) =>
  (await import('../../support/faults/size-check-cut.js')).withSizeCheckCut(await importOriginal(), cut),
);

afterEach(() => Object.assign(cut, { path: undefined, made: 0 }));

/** The store folders beside `dir`: a salvage writes its new session there. */
const besides = async (dir: string) => (await readdir(dirname(dir))).sort();

describe('salvage of a log cut while it is read', () => {
  it('of a whole session: an error that says the log was cut, and no new session', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const before = await besides(dir);
    const log = readFileSync(logOf(dir));
    Object.assign(cut, { path: logOf(dir) });
    await expect(salvageSession(dir)).rejects.toMatchObject({
      code: 'RX_DAMAGED_STORE',
      message: expect.stringContaining('cut'),
    });
    expect(cut.made).toBe(1);
    expect(await besides(dir)).toEqual(before);
    expect(readFileSync(logOf(dir)).equals(log)).toBe(true);
  });

  it('of a damaged session, whose first read ends at the damage: no cut is seen, and the salvage is made', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const frames = await framesOf(dir);
    await editLog(dir, (log) => {
      const flipped = Buffer.from(log);
      flipped[frames.at(-2)!.offset + 20]! ^= 0xff;
      return flipped;
    });
    const before = await besides(dir);
    Object.assign(cut, { path: logOf(dir) });
    // The damage ends the first read before the end of the bytes: no cut is seen, and the salvage is made.
    const report = await salvageSession(dir);
    expect(cut.made).toBe(0);
    expect(report.damage?.code).toBe('RX_DAMAGED_STORE');
    expect(existsSync(report.newDir)).toBe(true);
    expect((await besides(dir)).length).toBe(before.length + 1);
  });
});
