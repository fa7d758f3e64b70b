import { join } from 'node:path';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLogSession, salvageSession } from '../../src/index.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { copySession, editLog, framesOf } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { treeDigest } from '../support/tree-digest.js';

/**
 * A disk that fails a read (EIO) is the machine's fault, not the session's: rxstore says so with
 * RX_FILE_SYSTEM, never calls the session damaged, and salvage recovers nothing from a read it
 * could not make. The failing read is made in process: `readFileSync` of the content objects
 * under one folder throws EIO (as a dying disk does after `lstat` succeeded).
 */
const failing = vi.hoisted(() => ({ under: undefined as string | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  // Files under the folder opened by descriptor fail their reads too.
  const failingFds = new Set<number>();
  const openSync = ((path: unknown, ...rest: unknown[]) => {
    const fd = (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
    if (failing.under !== undefined && typeof path === 'string' && path.startsWith(failing.under)) failingFds.add(fd);
    else failingFds.delete(fd);
    return fd;
  }) as typeof fs.openSync;
  const readFileSync = ((path: unknown, ...rest: unknown[]) => {
    if (
      failing.under !== undefined &&
      ((typeof path === 'string' && path.startsWith(failing.under)) ||
        (typeof path === 'number' && failingFds.has(path)))
    ) {
      throw Object.assign(new Error(`EIO: i/o error, read '${path}'`), {
        code: 'EIO',
        errno: -5,
        syscall: 'read',
        path,
      });
    }
    return (fs.readFileSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, openSync, readFileSync }, openSync, readFileSync };
});

afterEach(() => {
  failing.under = undefined;
});

/** A copy of a session Reasonix wrote with a payload in the content store, whose object reads fail. */
async function failingCopy() {
  const dir = await copySession(fixture('payload-ref').dir);
  failing.under = join(dirname(dir), '.content-v1', 'objects');
  return dir;
}

const eio = { code: 'RX_FILE_SYSTEM', data: { errno: 'EIO' } };

describe('a read the disk fails is a file-system error, never damage', () => {
  it('readSession and the event reader throw RX_FILE_SYSTEM, and the session reads whole once the disk answers', async () => {
    const dir = await failingCopy();
    await expect(readSession(dir)).rejects.toMatchObject(eio);
    const session = await openLogSession(dir);
    await expect(
      (async () => {
        for await (const _ of session.events()) void _;
      })(),
    ).rejects.toMatchObject(eio);
    failing.under = undefined;
    expect((await readSession(dir)).status).toBe('ok');
  });

  it('salvage of a log damaged before the payload stops with RX_FILE_SYSTEM, writing nothing, instead of leaving the message out', async () => {
    const dir = await failingCopy();
    const frames = await framesOf(dir);
    const referenced = frames.find(
      (frame) => (frame.record.event as { payloadRef?: unknown } | undefined)?.payloadRef !== undefined,
    )!;
    const before = frames
      .filter(
        (frame) =>
          frame.offset < referenced.offset &&
          (frame.record.event as { kind?: string } | undefined)?.kind === 'message/complete',
      )
      .at(-1)!;
    // One bit flipped in the last message before the payload's frame: its batch and all after it fail to verify.
    await editLog(dir, (log) => {
      log[before.offset + before.bytes - 1]! ^= 0x01;
      return log;
    });
    const store = dirname(dir);
    const untouched = await treeDigest(store);
    await expect(salvageSession(dir)).rejects.toMatchObject(eio);
    expect(await treeDigest(store)).toBe(untouched);
    failing.under = undefined;
    const salvaged = await salvageSession(dir, { dryRun: true });
    expect(salvaged.recoveredMessages).toBeGreaterThan(0);
  });
});
