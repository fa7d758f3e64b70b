// What a person reads of a file Reasonix cannot use to open the session (its verdicts are judged by Reasonix in
// test/reasonix/reads/blocked-files-match-reasonix): `inspect` names it with what to do and does not call it harmless, and
// `repair`, which changes only a torn tail and Reasonix's caches, says so and leaves every file as it was.
import { mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/inspect-json-schema.js';
import { copySession, logOf } from '../support/faults/faults.js';
import { source } from '../support/reasonix/blocked-files.js';

async function withLock(make: (lock: string) => Promise<void>): Promise<{ dir: string; lock: string }> {
  const dir = await copySession(source.dir);
  const lock = join(dir, 'writer.lock');
  await rm(lock, { force: true });
  await make(lock);
  return { dir, lock };
}

describe('a writer.lock Reasonix cannot use, as the CLI tells it', () => {
  it.each([
    ['a directory', (lock: string) => mkdir(lock), 'writer.lock is a directory: Reasonix cannot take its writer lock'],
    [
      'a symlink to itself',
      (lock: string) => symlink(lock, lock),
      'writer.lock is a symlink loop (too many links): Reasonix cannot resolve its writer lock',
    ],
    [
      'a symlink to nothing',
      (lock: string) => symlink(join('no', 'such', 'file'), lock),
      'writer.lock is a symlink to nothing: Reasonix cannot resolve its writer lock',
    ],
  ])(
    '%s: inspect refuses it, naming what to do; repair says it leaves it, and changes nothing',
    async (_name, make, says) => {
      const { dir, lock } = await withLock(make);
      const inspect = await runCli(['inspect', dir]);
      expect(inspect.code).toBe(1);
      expect(inspect.stdout).toContain(
        `error        RX_BLOCKED_FILE ${lock}: ${says}, and refuses to open the session (moved aside, it is made again when Reasonix opens the session)\n`,
      );
      expect(inspect.stdout).toContain('lock files   1, not held; writer.lock Reasonix cannot use (below)\n');
      expect(inspect.stdout).not.toContain('harmless');

      const names = await readdir(dir);
      const log = await readFile(logOf(dir));
      const repair = await runCli(['repair', dir]);
      expect(repair).toMatchObject({ code: 1, stdout: '' });
      expect(repair.stderr).toBe(
        `rxstore: RX_BLOCKED_FILE: ${lock}: ${says}, and refuses to open the session (moved aside, it is made again when Reasonix opens the session); rxstore repair changes only a torn tail and Reasonix's caches, and leaves it\n`,
      );
      expect(await readdir(dir)).toEqual(names);
      expect(await readFile(logOf(dir))).toEqual(log);
    },
  );

  it('a lock file left behind, nothing wrong with it: harmless, and said so', async () => {
    const dir = await copySession(source.dir);
    const inspect = await runCli(['inspect', dir]);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toContain('lock files   1, not held (a lock file left behind is harmless');
  });
});
