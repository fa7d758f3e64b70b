// A write killed before it could remove its temporary file (`kill -9` during an export) left it beside the
// file it was writing, for good. The next write to that folder of a user's takes it away: a temp whose
// lock can be taken is one whose writer is gone (the system drops a `flock` when its holder dies). Never a
// temp a live writer holds, never anything but rxstore's own regular files, and never one of another user's.
import { link, mkdir, open, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tryLockHandle } from '../../src/fs/os-lock.js';
import { openTempBeside, removeAbandonedTemps } from '../../src/fs/temp-files.js';
import { rxstoreBin, runNodeChild } from '../support/cli-child.js';
import { killAtFailPoint } from '../support/faults/fail-points.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const temps = async (dir: string) => (await readdir(dir)).filter((name) => /^\.rxstore-.*\.tmp/.test(name)).sort();

describe('the temporary files of a killed write', () => {
  it('are taken away by the next export to the folder, and only they', async () => {
    const dir = await tempDir('rxstore-killed-export-');
    const out = join(dir, 'exported.jsonl');
    const argv = [rxstoreBin, 'export', fixture('tool-calls').dir, '--to', out];
    await killAtFailPoint(argv, { name: 'atomic.temp-synced', hit: 1 });
    const left = await temps(dir);
    expect(left).toHaveLength(1);
    // What is not a temp a killed writer left: one a live writer holds, links and a folder of the same names.
    const live = await openTempBeside(join(dir, 'another.txt'), 0o600);
    await live.handle.write('being written');
    await symlink(out, join(dir, '.rxstore-00000000000000aa.tmp'));
    await mkdir(join(dir, '.rxstore-00000000000000bb.tmp'));
    await writeFile(join(dir, 'notes.tmp'), 'mine');
    // A hard link of a temp's name to a file of the user's: the link is the user's too.
    await writeFile(join(dir, 'precious.txt'), 'precious');
    await link(join(dir, 'precious.txt'), join(dir, '.rxstore-00000000000000cc.tmp'));
    try {
      const run = await runNodeChild(argv);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse((await readFile(out, 'utf8')).split('\n')[0]!)).toBeTypeOf('object');
      expect(await temps(dir)).toEqual(
        [
          live.temp.slice(dir.length + 1),
          '.rxstore-00000000000000aa.tmp',
          '.rxstore-00000000000000bb.tmp',
          '.rxstore-00000000000000cc.tmp',
        ].sort(),
      );
      expect(await readdir(dir)).toContain('notes.tmp');
    } finally {
      await live.handle.close();
    }
    // Its writer gone, the live one's temp goes with the next write too.
    const again = await runNodeChild([...argv.slice(0, -1), join(dir, 'exported-again.jsonl')]);
    expect(again.code, again.stderr).toBe(0);
    expect(await temps(dir)).toEqual([
      '.rxstore-00000000000000aa.tmp',
      '.rxstore-00000000000000bb.tmp',
      '.rxstore-00000000000000cc.tmp',
    ]);
  }, 60_000);

  afterEach(() => {
    vi.useRealTimers();
  });

  it('under the name a temp has before it is locked: taken away only once it kept that name a minute', async () => {
    const dir = await tempDir('rxstore-killed-born-');
    const out = join(dir, 'exported.jsonl');
    // What a writer killed between creating its temp and renaming it leaves: an unlocked file of the born name.
    const born = '.rxstore-00000000000000dd.tmp.new';
    await writeFile(join(dir, born), 'half a write');
    // One whose writer lives (stopped there, its lock held) stays however old it is.
    const heldName = '.rxstore-00000000000000ee.tmp.new';
    const held = await open(join(dir, heldName), 'wx', 0o600);
    try {
      expect(tryLockHandle(held, 'exclusive')).toBe(true);
      // Just made: its writer may be between the two steps, and the next export leaves it.
      const run = await runNodeChild([rxstoreBin, 'export', fixture('tool-calls').dir, '--to', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(await temps(dir)).toEqual([born, heldName]);
      // A minute on (the clock moved, not waited for), the killed writer's goes and the live one's stays.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 61_000);
      await removeAbandonedTemps(dir);
      expect(await temps(dir)).toEqual([heldName]);
    } finally {
      await held.close();
    }
    expect((await readdir(dir)).filter((name) => !name.startsWith('.'))).toEqual([
      'exported.jsonl',
      'exported.jsonl.meta',
    ]);
  }, 60_000);

  it('a file of a name of theirs is refused, never written for the next write to take away', async () => {
    const dir = await tempDir('rxstore-temp-named-');
    for (const name of ['.rxstore-abcdefabcdefabcd.tmp', '.rxstore-abcdefabcdefabce.tmp.new']) {
      const run = await runNodeChild([rxstoreBin, 'export', fixture('tool-calls').dir, '--to', join(dir, name)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /^rxstore: RX_INVALID_INPUT: .*\.rxstore-abcdefabcdefabc[de]\.tmp.*temporary files.*\n$/,
      );
    }
    expect(await readdir(dir)).toEqual([]);
  }, 60_000);
});
