import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ChangeWatch } from '../../src/fs/change-watch.js';
import { tempDir } from '../support/temp-dir.js';

/** A store-like tree: a listed folder, a session folder in it with two files, and a file that is not there. */
async function tree() {
  const root = await tempDir('rxstore-change-watch-');
  const store = join(root, 'home', 'store');
  const session = join(store, 'a1');
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, 'events.frames'), 'x');
  writeFileSync(join(session, 'manifest.json'), '{}');
  writeFileSync(join(root, 'home', 'unrelated.txt'), '');
  const paths = [join(session, 'events.frames'), join(session, 'manifest.json'), join(session, 'writer.lock')];
  const watch = ChangeWatch.of(paths, [store]);
  if (!watch) throw new Error('no watch on this machine');
  onTestFinished(() => watch.close());
  return { root, store, session, watch };
}

describe.runIf(process.platform === 'linux')('a change watch', () => {
  it('is quiet while nothing it covers changes, whatever changes beside it', async () => {
    const { root, session, watch } = await tree();
    expect(await watch.quiet()).toBe(true);
    appendFileSync(join(root, 'home', 'unrelated.txt'), 'more');
    writeFileSync(join(root, 'elsewhere'), '');
    mkdirSync(join(session, 'scratch-not-looked-at'));
    expect(await watch.quiet()).toBe(true);
  });

  const changes: [string, (at: Awaited<ReturnType<typeof tree>>) => void][] = [
    ['a byte appended to a file', ({ session }) => appendFileSync(join(session, 'events.frames'), 'y')],
    ['a file rewritten in place', ({ session }) => writeFileSync(join(session, 'manifest.json'), '{"a":1}')],
    [
      'a file put in place by a rename',
      ({ session }) => {
        writeFileSync(join(session, 'new'), '{}');
        renameSync(join(session, 'new'), join(session, 'manifest.json'));
      },
    ],
    ['a file removed', ({ session }) => rmSync(join(session, 'events.frames'))],
    ['a file that was not there made', ({ session }) => writeFileSync(join(session, 'writer.lock'), '')],
    ['a folder where a file was not', ({ session }) => mkdirSync(join(session, 'writer.lock'))],
    ["a file's mode changed", ({ session }) => chmodSync(join(session, 'events.frames'), 0o600)],
    ['a session folder added to a listed one', ({ store }) => mkdirSync(join(store, 'b2'))],
    ['a symbolic link added to a listed one', ({ store, root }) => symlinkSync(root, join(store, 'c3'))],
    ['the session folder renamed', ({ store, session }) => renameSync(session, join(store, 'moved'))],
    ['a folder above the store renamed', ({ root }) => renameSync(join(root, 'home'), join(root, 'away'))],
  ];
  for (const [what, change] of changes)
    it(`says so at once after ${what}, until armed again`, async () => {
      const at = await tree();
      change(at);
      expect(await at.watch.quiet()).toBe(false);
      expect(await at.watch.quiet()).toBe(false);
      at.watch.arm();
      expect(await at.watch.quiet()).toBe(true);
    });

  it('is never quiet once closed', async () => {
    const { watch } = await tree();
    watch.close();
    expect(await watch.quiet()).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('no change watch', () => {
  it('over a file system whose changes it may not all see (here /proc, none of the local ones)', () => {
    expect(ChangeWatch.of(['/proc/self/status'])).toBeUndefined();
  });
});
