// A repair changes the session's own files, and nothing a link or a second name leads to: a cache folder
// linked out of the store, a log that is a link or has a backup's hard link, or a log another process put
// in place of the one repair read. Each is refused, or stopped, before anything outside is touched.
import { appendFile, link, mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repairSession } from '../../../src/index.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

/** At the moment a repair removes the session's query cache, another log is renamed into the log's place. */
const swap = vi.hoisted(() => ({
  cache: undefined as string | undefined,
  log: '',
  replacement: '',
  /** A second name given to the log there instead (a backup linked while the repair ran). */
  backup: undefined as string | undefined,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const rm = (async (path: unknown, ...rest: unknown[]) => {
    if (path === swap.cache && swap.backup) await fs.link(swap.log, swap.backup);
    else if (path === swap.cache) await fs.rename(swap.replacement, swap.log);
    return (fs.rm as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.rm;
  return { ...fs, default: { ...fs, rm }, rm };
});

afterEach(() => {
  swap.cache = undefined;
  swap.backup = undefined;
});

/** A copy of the plain chat with a torn tail of 7 bytes. */
async function tornCopy(): Promise<string> {
  const dir = await copySession(fixture('plain-chat').dir);
  await cutLog(dir, 7);
  return dir;
}

const tornFiles = async (dir: string) => (await readdir(dir)).filter((name) => name.includes('torn'));

describe('repair changes only what is its own', () => {
  it.each(['.recovery-cache', '.query-cache'])(
    'a %s folder linked out of the store is refused, and what it leads to is kept',
    async (folder) => {
      const dir = await tornCopy();
      const outside = await tempDir('rxstore-outside-');
      await mkdir(join(outside, basename(dir)));
      await writeFile(join(outside, basename(dir), 'recovery-v1.bolt'), 'not rxstore’s');
      await symlink(outside, join(dirname(dir), folder));
      const log = await readFile(logOf(dir));
      await expect(repairSession(dir)).rejects.toMatchObject({
        code: 'RX_NOT_REGULAR_FILE',
        message: expect.stringContaining('is a symbolic link'),
        data: { file: join(dirname(dir), folder) },
      });
      expect(await readFile(join(outside, basename(dir), 'recovery-v1.bolt'), 'utf8')).toBe('not rxstore’s');
      expect(await readFile(logOf(dir))).toEqual(log);
      expect(await tornFiles(dir)).toEqual([]);
    },
  );

  it('a log that is a link to a file elsewhere is refused, and that file is not cut', async () => {
    const dir = await tornCopy();
    const outside = join(await tempDir('rxstore-outside-'), 'events.frames');
    await rename(logOf(dir), outside);
    await symlink(outside, logOf(dir));
    const log = await readFile(outside);
    await expect(repairSession(dir)).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      message: expect.stringContaining('events.frames is a symbolic link'),
    });
    expect(await readFile(outside)).toEqual(log);
  });

  it('a log with a second name (a backup made with cp -al) is refused, and neither is cut', async () => {
    const dir = await tornCopy();
    const backup = join(await tempDir('rxstore-backup-'), 'events.frames');
    await link(logOf(dir), backup);
    const log = await readFile(logOf(dir));
    for (const dryRun of [true, false])
      await expect(repairSession(dir, { dryRun })).rejects.toMatchObject({
        code: 'RX_NOT_REGULAR_FILE',
        message: expect.stringContaining('a file with 2 names (a hard link)'),
      });
    expect(await readFile(backup)).toEqual(log);
    expect(await readFile(logOf(dir))).toEqual(log);
  });

  it('a log put in place of the one it read is left whole: the repair stops, the torn tail kept', async () => {
    const dir = await tornCopy();
    const longer = join(dirname(dir), 'longer.frames');
    await writeFile(longer, await readFile(logOf(dir)));
    await appendFile(longer, 'another writer’s bytes');
    const replacement = await readFile(longer);
    Object.assign(swap, {
      cache: join(dirname(dir), '.query-cache', basename(dir)),
      log: logOf(dir),
      replacement: longer,
    });
    await expect(repairSession(dir)).rejects.toMatchObject({
      code: 'RX_DAMAGED_STORE',
      message: expect.stringContaining('another file was put in its place'),
    });
    expect(await readFile(logOf(dir))).toEqual(replacement);
    // The torn bytes it read are kept beside the log.
    expect(await tornFiles(dir)).toHaveLength(1);
  });

  it('a second name given to the log while it ran is not cut with it: the repair stops', async () => {
    const dir = await tornCopy();
    const log = await readFile(logOf(dir));
    const backup = join(await tempDir('rxstore-backup-'), 'events.frames');
    Object.assign(swap, { cache: join(dirname(dir), '.query-cache', basename(dir)), log: logOf(dir), backup });
    await expect(repairSession(dir)).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      message: expect.stringContaining('a file with 2 names (a hard link)'),
    });
    expect(await readFile(backup)).toEqual(log);
  });
});
