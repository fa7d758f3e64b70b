// Files Reasonix 1.38.11 must use to open a session, standing there as something else, each with the file
// Reasonix refused to open the session over (undefined: it opened it), measured in
// test/reasonix/reads/blocked-files-match-reasonix; test/session/reading/blocked-files-in-process holds rxstore to the same verdicts.
import { copyFile, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixture } from '../fixtures.js';
import { tempDir } from '../temp-dir.js';

export const source = fixture('plain-chat');

const replaced = (name: string, make: (path: string, dir: string) => Promise<void>) => async (dir: string) => {
  const path = join(dir, name);
  await rm(path, { force: true });
  await make(path, dir);
};

export const blockedFileCases: [name: string, make: (dir: string) => Promise<void>, blocked: string | undefined][] = [
  ['writer.lock is a directory', replaced('writer.lock', (path) => mkdir(path)), 'writer.lock'],
  [
    'writer.lock is a symlink to nothing',
    replaced('writer.lock', (path) => symlink(join('no', 'such', 'file'), path)),
    'writer.lock',
  ],
  [
    'writer.lock is a symlink to a file',
    replaced('writer.lock', async (path, dir) => {
      await writeFile(join(dir, 'lock-target'), '');
      await symlink('lock-target', path);
    }),
    undefined,
  ],
  [
    'writer.lock is a symlink loop (too many links) — to itself',
    replaced('writer.lock', (path) => symlink(path, path)),
    'writer.lock',
  ],
  [
    'writer.lock is a symlink to a directory',
    replaced('writer.lock', async (path, dir) => {
      await mkdir(join(dir, 'lock-target'));
      await symlink('lock-target', path);
    }),
    'writer.lock',
  ],
  ['writer.lock is missing', replaced('writer.lock', async () => {}), undefined],
  [
    'storage.identity.json is a directory',
    replaced('storage.identity.json', (path) => mkdir(path)),
    'storage.identity.json',
  ],
  [
    'storage.identity.json is a symlink to nothing',
    replaced('storage.identity.json', (path) => symlink(join('no', 'such', 'file'), path)),
    undefined,
  ],
  ['events.offset-index.json is a directory', replaced('events.offset-index.json', (path) => mkdir(path)), undefined],
  [
    'storage.identity.json is a symlink to itself',
    replaced('storage.identity.json', (path) => symlink(path, path)),
    undefined,
  ],
  [
    'events.offset-index.json is a symlink to itself',
    replaced('events.offset-index.json', (path) => symlink(path, path)),
    undefined,
  ],
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
