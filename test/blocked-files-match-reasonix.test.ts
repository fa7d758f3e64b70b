import { copyFile, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../src/session/reading/read-session.js';
import { copySession } from './support/faults.js';
import { fixture } from './support/fixtures.js';
import { reasonixAbsentMessage, reasonixBinary, simpleWorkspaceSlug } from './support/reasonix.js';
import { tempDir } from './support/temp-dir.js';
import { reasonixVerdict } from './support/reasonix-verdict.js';

/**
 * Files Reasonix 1.38.11 must use to open a session, standing there as something else: it refuses to open
 * the session when it cannot take its writer lock or write its storage identity, and opens it when the
 * file is only stale or replaceable. rxstore's verdict is Reasonix's, and names the file.
 */
const source = fixture('plain-chat');

const replaced = (name: string, make: (path: string, dir: string) => Promise<void>) => async (dir: string) => {
  const path = join(dir, name);
  await rm(path, { force: true });
  await make(path, dir);
};

const cases: [string, (dir: string) => Promise<void>, string | undefined][] = [
  ['writer.lock is a directory', replaced('writer.lock', (path) => mkdir(path)), 'writer.lock'],
  ['writer.lock is a symlink to nothing', replaced('writer.lock', (path) => symlink(join('no', 'such', 'file'), path)), 'writer.lock'],
  [
    'writer.lock is a symlink to a file',
    replaced('writer.lock', async (path, dir) => {
      await writeFile(join(dir, 'lock-target'), '');
      await symlink('lock-target', path);
    }),
    undefined,
  ],
  ['writer.lock is missing', replaced('writer.lock', async () => {}), undefined],
  ['storage.identity.json is a directory', replaced('storage.identity.json', (path) => mkdir(path)), 'storage.identity.json'],
  ['storage.identity.json is a symlink to nothing', replaced('storage.identity.json', (path) => symlink(join('no', 'such', 'file'), path)), undefined],
  ['events.offset-index.json is a directory', replaced('events.offset-index.json', (path) => mkdir(path)), undefined],
  [
    'events.frames is a symlink to the log kept elsewhere',
    replaced('events.frames', async (path) => {
      const elsewhere = join(await tempDir('rxstore-log-elsewhere-'), 'events.frames');
      await copyFile(join(source.dir, 'events.frames'), elsewhere);
      await symlink(elsewhere, path);
    }),
    undefined,
  ],
];

describe.skipIf(!reasonixBinary())(`the store's ownership lock as a directory, judged by Reasonix 1.38.11 ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`, () => {
  it('is refused by both', async () => {
    const dir = await copySession(source.dir);
    const lock = join(dirname(dir), `.${basename(dir)}.ownership.lock`);
    await mkdir(lock);
    const home = await tempDir('rxstore-ownership-');
    await mkdir(join(home, 'projects', simpleWorkspaceSlug(source.workspace), 'sessions-v4', `.${basename(dir)}.ownership.lock`), { recursive: true });
    const reasonix = await reasonixVerdict(dir, source.workspace, home);
    expect(reasonix.error).toContain('lock');
    expect((await readSession(dir)).refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: lock } });
  });
});

describe.skipIf(!reasonixBinary())(`files Reasonix must use to open a session, judged by Reasonix 1.38.11 ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`, () => {
  it.concurrent.each(cases)('%s', async (_, make, blocked) => {
    const dir = await copySession(source.dir);
    await make(dir);
    const read = await readSession(dir);
    const reasonix = await reasonixVerdict(dir, source.workspace);
    expect(reasonix.opens, reasonix.error).toBe(blocked === undefined);
    expect(read.status).toBe(reasonix.status);
    if (blocked) expect(read.refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: join(dir, blocked) } });
    else expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  });
});
