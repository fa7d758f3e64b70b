// A lock file rxstore takes (a session's writer locks, the migration map's, the search index's) is opened with
// O_CREAT: through a link it would make, as root, an empty file wherever the link leads, or lock someone else's.
import { existsSync } from 'node:fs';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryOsLock, waitOsLock } from '../../src/fs/os-lock.js';
import { acquireWriterLocks } from '../../src/index.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('a lock file that is a link', () => {
  it.each([
    ['tryOsLock', (path: string) => tryOsLock(path)],
    ['waitOsLock', (path: string) => waitOsLock(path, 3, 1)],
  ])('%s refuses a link to nothing, and makes no file where it leads', async (_, take) => {
    const dir = await tempDir('rxstore-lock-link-');
    const [lock, target] = [join(dir, 'x.lock'), join(dir, 'elsewhere')];
    await symlink(target, lock);
    await expect(take(lock)).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      message: expect.stringContaining('is a symbolic link'),
      data: { file: lock },
    });
    expect(existsSync(target)).toBe(false);
  });

  it("a session's writer lock linked to another file is refused, that file left as it was", async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const target = join(await tempDir('rxstore-lock-link-'), 'someone-else.lock');
    await writeFile(target, 'kept');
    const writerLock = join(dir, 'writer.lock');
    await rm(writerLock, { force: true });
    await symlink(target, writerLock);
    await expect(acquireWriterLocks(dir)).rejects.toMatchObject({
      code: 'RX_NOT_REGULAR_FILE',
      data: { file: writerLock },
    });
    expect(await readFile(target, 'utf8')).toBe('kept');
  });
});
