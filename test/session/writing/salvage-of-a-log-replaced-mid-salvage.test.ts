// What salvage writes is made of one log, and named by what it read. A log replaced (another file renamed
// into its place, as an editor or a restore does) after salvage found its damage and before it read the
// messages past it once gave a salvage of the old log's verdict and the new log's bytes, with exit 0. And
// a content object put back after a salvage made without it was answered `already-salvaged` with counts
// the session on disk did not hold. The replacement is made in process, when the first read of the
// log's batches ends.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTENT_DIR } from '../../../src/codec/content-store.js';
import { salvageSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, editLog, framesOf, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const replace = vi.hoisted(() => ({ log: undefined as string | undefined, with: undefined as Buffer | undefined }));

vi.mock('../../../src/session/reading/read-events.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/session/reading/read-events.js')>();
  return {
    ...original,
    // The first read of a log given: when it ends, the log is replaced by a file renamed over it.
    readSessionEvents: async function* (...args: Parameters<typeof original.readSessionEvents>) {
      try {
        yield* original.readSessionEvents(...args);
      } finally {
        if (replace.log !== undefined && replace.with !== undefined) {
          writeFileSync(`${replace.log}.new`, replace.with);
          renameSync(`${replace.log}.new`, replace.log);
          replace.with = undefined;
        }
      }
    },
  };
});

afterEach(() => Object.assign(replace, { log: undefined, with: undefined }));

/** A copy of `name` with a byte flipped in its middle frame, and the log as it was before. */
async function damagedCopy(name: Parameters<typeof fixture>[0]): Promise<{ dir: string; whole: Buffer }> {
  const dir = await copySession(fixture(name).dir);
  const whole = readFileSync(logOf(dir));
  const middle = (await framesOf(dir))[Math.floor((await framesOf(dir)).length / 2)]!;
  await editLog(dir, (log) => {
    const flipped = Buffer.from(log);
    flipped[middle.offset + 20]! ^= 0xff;
    return flipped;
  });
  return { dir, whole };
}

describe('salvage of a log replaced while it is salvaged', () => {
  it('by a whole copy renamed into its place after the damage was found: an error, and no new session', async () => {
    const { dir, whole } = await damagedCopy('tool-calls');
    const before = (await readdir(dirname(dir))).sort();
    Object.assign(replace, { log: logOf(dir), with: whole });
    await expect(salvageSession(dir)).rejects.toMatchObject({
      code: 'RX_DAMAGED_STORE',
      message: expect.stringContaining('written over while it was salvaged'),
    });
    expect(replace.with).toBeUndefined();
    expect((await readdir(dirname(dir))).sort()).toEqual(before);
  });

  it('left as it is: the salvage is made', async () => {
    const { dir } = await damagedCopy('tool-calls');
    const report = await salvageSession(dir);
    expect(report.action).toBe('salvaged');
    expect(existsSync(report.newDir)).toBe(true);
  });
});

describe('salvage of the same log with its content store changed since', () => {
  it('is another salvage, whose counts are the session it writes; a re-run finds that one', async () => {
    const dir = await copySession(fixture('payload-ref').dir);
    const withRef = (await framesOf(dir)).find(
      (frame) => (frame.record.event as { payloadRef?: unknown } | undefined)?.payloadRef,
    )!;
    const { digest } = (withRef.record.event as { payloadRef: { digest: string } }).payloadRef;
    const object = join(dirname(dir), CONTENT_DIR, 'objects', digest.slice(0, 2), digest.slice(2, 4), digest);
    const bytes = await readFile(object);
    await rm(object);
    const without = await salvageSession(dir);
    expect(without.damage).not.toBeNull();
    // Put back: the session is whole again, and a salvage of it keeps every batch.
    await writeFile(object, bytes);
    const whole = await salvageSession(dir);
    expect(whole.action).toBe('salvaged');
    expect(whole.newId).not.toBe(without.newId);
    expect(whole.damage).toBeNull();
    expect(whole.batchesKept).toBe((await readSession(dir)).batches);
    expect((await readSession(whole.newDir)).batches).toBe(whole.batchesKept);
    expect(await salvageSession(dir)).toMatchObject({ action: 'already-salvaged', newId: whole.newId });
    // The first salvage is still what it said it was.
    expect((await readSession(without.newDir)).batches).toBeGreaterThanOrEqual(without.batchesKept);
  });
});
