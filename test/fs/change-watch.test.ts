import {
  appendFileSync,
  chmodSync,
  cpSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
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

  /** Each change, and whether it replaces a folder the watch watches (which is then to be made again). */
  const changes: [string, (at: Awaited<ReturnType<typeof tree>>) => void, 'replaces a folder'?][] = [
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
    [
      'the session folder renamed',
      ({ store, session }) => renameSync(session, join(store, 'moved')),
      'replaces a folder',
    ],
    [
      'a folder above the store renamed',
      ({ root }) => renameSync(join(root, 'home'), join(root, 'away')),
      'replaces a folder',
    ],
  ];
  for (const [what, change, replaces] of changes)
    it(`says so at once after ${what}, until armed again${replaces ? ' (never, a folder replaced)' : ''}`, async () => {
      const at = await tree();
      change(at);
      expect(await at.watch.quiet()).toBe(false);
      expect(await at.watch.quiet()).toBe(false);
      expect(at.watch.restructured).toBe(replaces !== undefined);
      at.watch.arm();
      expect(await at.watch.quiet()).toBe(replaces === undefined);
    });

  it('says a folder it watches was replaced, by a copy or from above, so that it is made again', async () => {
    const replaced = await tree();
    cpSync(replaced.session, `${replaced.session}.copy`, { recursive: true });
    rmSync(replaced.session, { recursive: true });
    renameSync(`${replaced.session}.copy`, replaced.session);
    expect(await replaced.watch.quiet()).toBe(false);
    expect(replaced.watch.restructured).toBe(true);
    const above = await tree();
    renameSync(join(above.root, 'home'), join(above.root, 'away'));
    mkdirSync(join(above.store, '..', '..', '..', 'home', 'store', 'a1'), { recursive: true });
    expect(await above.watch.quiet()).toBe(false);
    expect(above.watch.restructured).toBe(true);
    const appended = await tree();
    appendFileSync(join(appended.session, 'events.frames'), 'y');
    expect(await appended.watch.quiet()).toBe(false);
    expect(appended.watch.restructured).toBe(false);
  });

  it('counts as a change as many events as the kernel queues, past which it would drop some', async () => {
    const { session, watch } = await tree();
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    for (let n = 0; n < limit / 2; n += 1) writeFileSync(join(session, `unrelated-${n}`), '');
    expect(await watch.quiet()).toBe(false);
  });

  it('is never quiet once closed', async () => {
    const { watch } = await tree();
    watch.close();
    expect(await watch.quiet()).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('no change watch', () => {
  it('over a file system whose changes it may not all see (here /proc, none of the local ones)', () => {
    expect(ChangeWatch.of(['/proc/self/status'], ['/proc/self'])).toBeUndefined();
  });

  it('where a change could come through another path: a symbolic link or a hard link inside the folders', async () => {
    const root = await tempDir('rxstore-change-watch-links-');
    const store = join(root, 'store');
    mkdirSync(join(store, 'a1'), { recursive: true });
    writeFileSync(join(root, 'elsewhere.json'), '{}');
    symlinkSync(join(root, 'elsewhere.json'), join(store, 'a1', 'manifest.json'));
    expect(ChangeWatch.of([join(store, 'a1', 'manifest.json')], [store])).toBeUndefined();
    writeFileSync(join(store, 'a1', 'events.frames'), 'x');
    linkSync(join(store, 'a1', 'events.frames'), join(root, 'other-name'));
    expect(ChangeWatch.of([join(store, 'a1', 'events.frames')], [store])).toBeUndefined();
    symlinkSync(join(root, 'elsewhere'), join(store, 'b2'));
    expect(ChangeWatch.of([join(store, 'b2', 'events.frames')], [store])).toBeUndefined();
  });
});
