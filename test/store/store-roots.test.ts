// Where Reasonix keeps sessions on each platform, as 1.38.11 and 2.x resolve it (docs/format.md §1.1, §1.4), and what rxstore reads.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandDirValue } from '../../src/store/roots/expand-dir-value.js';
import { listSessions } from '../../src/store/listing/list-sessions.js';
import {
  legacyRoots,
  reasonixHome,
  resolveStoreRoots,
  stateRoot,
  type RootInputs,
} from '../../src/store/roots/roots.js';
import { storageStateEntry } from '../../src/store/roots/storage-state-entry.js';
import { buildStateRoot } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';

const linux = (env: RootInputs['env'] = {}, homeDir = '/home/me'): RootInputs => ({
  platform: 'linux',
  env,
  homeDir,
  cwd: '/home/me/project',
});
const macos = (env: RootInputs['env'] = {}): RootInputs => ({
  platform: 'darwin',
  env,
  homeDir: '/Users/me',
  cwd: '/home/me/project',
});
const windows = (env: RootInputs['env'] = {}, homeDir = 'C:\\Users\\Me'): RootInputs => ({
  platform: 'win32',
  env,
  homeDir,
  cwd: 'D:\\work',
});

describe('the Reasonix home and state root (1.38.11)', () => {
  it('defaults to ~/.reasonix on Linux and macOS', () => {
    expect(reasonixHome(linux())).toBe('/home/me/.reasonix');
    expect(stateRoot(linux(), '1.x')).toBe('/home/me/.reasonix');
    expect(stateRoot(macos(), '1.x')).toBe('/Users/me/.reasonix');
  });

  it('without a home directory, falls back to the config directory: $XDG_CONFIG_HOME/reasonix on Linux', () => {
    expect(reasonixHome(linux({ XDG_CONFIG_HOME: '/xdg' }, ''))).toBe('/xdg/reasonix');
    expect(reasonixHome(linux({ XDG_CONFIG_HOME: 'relative' }, ''))).toBeUndefined();
  });

  it('defaults to %APPDATA%\\reasonix on Windows, else %USERPROFILE%\\AppData\\Roaming\\reasonix', () => {
    expect(reasonixHome(windows({ APPDATA: 'C:\\Users\\Me\\AppData\\Roaming' }))).toBe(
      'C:\\Users\\Me\\AppData\\Roaming\\reasonix',
    );
    expect(reasonixHome(windows())).toBe('C:\\Users\\Me\\AppData\\Roaming\\reasonix');
    expect(reasonixHome(windows({}, ''))).toBeUndefined();
  });

  it('REASONIX_HOME moves the home and the state root; REASONIX_STATE_HOME moves only the state root', () => {
    expect(stateRoot(linux({ REASONIX_HOME: '/opt/rx' }), '1.x')).toBe('/opt/rx');
    const both = linux({ REASONIX_HOME: '/opt/rx', REASONIX_STATE_HOME: '/data/rx' });
    expect(reasonixHome(both)).toBe('/opt/rx');
    expect(stateRoot(both, '1.x')).toBe('/data/rx');
    expect(stateRoot(windows({ REASONIX_STATE_HOME: 'E:\\rx-state\\' }), '1.x')).toBe('E:\\rx-state');
  });

  it('normalises values: trim, ${VAR} (with :-default), a leading ~, absolute against the working directory, clean', () => {
    const env = { BASE: '/srv', EMPTY: '' };
    expect(expandDirValue('  ${BASE}/rx//state/../state/  ', { ...linux(env) })).toBe('/srv/rx/state');
    expect(expandDirValue('${MISSING:-/fallback}/rx', linux(env))).toBe('/fallback/rx');
    expect(expandDirValue('${EMPTY:-/fallback}', linux(env))).toBe('/fallback');
    expect(expandDirValue('$BASE/rx', linux(env))).toBe('/home/me/project/$BASE/rx'); // only ${…} is expanded
    expect(expandDirValue('~', linux())).toBe('/home/me');
    expect(expandDirValue('~/rx', linux())).toBe('/home/me/rx');
    expect(expandDirValue('~\\rx', windows())).toBe('C:\\Users\\Me\\rx');
    expect(expandDirValue('relative/rx', linux())).toBe('/home/me/project/relative/rx');
    expect(expandDirValue('rx', windows())).toBe('D:\\work\\rx');
    expect(expandDirValue('/rx', windows())).toBe('D:\\rx');
    expect(expandDirValue('   ', linux())).toBeUndefined();
    expect(stateRoot(linux({ REASONIX_STATE_HOME: ' ' }), '1.x')).toBe('/home/me/.reasonix');
  });
});

describe('the state root in 2.x: [storage] state in <home>/config.toml', () => {
  it('beats the plain home fallback, also when the home came from REASONIX_HOME; REASONIX_STATE_HOME beats it', () => {
    expect(stateRoot(linux(), '2.x', '~/rx-state')).toBe('/home/me/rx-state');
    expect(stateRoot(linux({ REASONIX_HOME: '/opt/rx' }), '2.x', '/data/state')).toBe('/data/state');
    expect(stateRoot(linux({ REASONIX_STATE_HOME: '/env/state' }), '2.x', '/data/state')).toBe('/env/state');
    expect(stateRoot(windows({ APPDATA: 'C:\\Users\\Me\\AppData\\Roaming' }), '2.x', 'E:\\rx')).toBe('E:\\rx');
    expect(stateRoot(macos(), '2.x', undefined)).toBe('/Users/me/.reasonix');
  });

  it('1.38.11 has no [storage] table and ignores it', () => {
    expect(stateRoot(linux(), '1.x', '/data/state')).toBe('/home/me/.reasonix');
  });

  it('reads only that entry of the TOML file', () => {
    const config = [
      'config_version = 1',
      'default_model = "mock/model"  # state = "not this"',
      '',
      '[telemetry]',
      'state = "/not/this/either"',
      '',
      '[storage]',
      'cache = "/c"',
      'state = "D:\\\\rx\\\\state" # relocated',
      '',
      '[[providers]]',
      'name = "mock"',
    ].join('\n');
    expect(storageStateEntry(config)).toBe('D:\\rx\\state');
    expect(storageStateEntry("[ storage ]\nstate = '/literal/path'\n")).toBe('/literal/path');
    expect(storageStateEntry('storage.state = "/dotted"\n')).toBe('/dotted');
    expect(storageStateEntry('[storage]\nstate = 42\n')).toBeUndefined();
    expect(storageStateEntry('[storage.other]\nstate = "/x"\n')).toBeUndefined();
    expect(storageStateEntry('[[storage]]\nstate = "/x"\n')).toBeUndefined();
    expect(storageStateEntry('[storage]\n"state" = "/quoted-key"\n')).toBe('/quoted-key');
    expect(storageStateEntry('')).toBeUndefined();
  });
});

describe('legacy roots (docs/format.md §1.4)', () => {
  it('Linux: $XDG_CONFIG_HOME/reasonix and ~/.config/reasonix', () => {
    expect(legacyRoots(linux({ XDG_CONFIG_HOME: '/xdg' }))).toEqual(['/xdg/reasonix', '/home/me/.config/reasonix']);
    expect(legacyRoots(linux())).toEqual(['/home/me/.config/reasonix']);
  });

  it('macOS: ~/Library/Application Support/reasonix and ~/.config/reasonix', () => {
    expect(legacyRoots(macos())).toEqual([
      '/Users/me/Library/Application Support/reasonix',
      '/Users/me/.config/reasonix',
    ]);
  });

  it('Windows: ~/.reasonix (the home is %APPDATA%\\reasonix there)', () => {
    expect(legacyRoots(windows({ APPDATA: 'C:\\Users\\Me\\AppData\\Roaming' }))).toEqual(['C:\\Users\\Me\\.reasonix']);
  });

  it('none when the home or the state root is pinned: an isolated runtime never imports', () => {
    expect(legacyRoots(linux({ REASONIX_HOME: '/opt/rx' }))).toEqual([]);
    expect(legacyRoots(linux({ REASONIX_STATE_HOME: '/data/rx' }))).toEqual([]);
  });
});

describe('what rxstore reads', () => {
  it("both lines' state roots when a 2.x [storage] state relocates sessions, plus the legacy roots", async () => {
    const home = await tempDir('rxstore-roots-home-');
    await mkdir(join(home, '.reasonix'));
    await writeFile(join(home, '.reasonix', 'config.toml'), '[storage]\nstate = "~/relocated"\n');
    const roots = await resolveStoreRoots(linux({}, home));
    expect(roots).toEqual({
      reasonixStateRoot: join(home, '.reasonix'),
      pinned: {},
      roots: [
        { kind: 'state', path: join(home, '.reasonix'), lines: ['1.x'] },
        { kind: 'state', path: join(home, 'relocated'), lines: ['2.x'] },
        { kind: 'legacy', path: join(home, '.config', 'reasonix') },
      ],
    });
  });

  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
    ['a symlink to /dev/zero', (path: string) => symlink('/dev/zero', path)],
  ])('a config.toml that is %s is no setting, never waited on or read without end', async (_, make) => {
    const home = await tempDir('rxstore-roots-home-');
    await mkdir(join(home, '.reasonix'));
    await make(join(home, '.reasonix', 'config.toml'));
    const roots = await resolveStoreRoots(linux({}, home));
    expect(roots.roots.filter((root) => root.kind === 'state')).toEqual([
      { kind: 'state', path: join(home, '.reasonix'), lines: ['1.x', '2.x'] },
    ]);
  });

  it('--home and --state-home act as REASONIX_HOME and REASONIX_STATE_HOME, and outrank RXSTORE_ROOT', async () => {
    const machine = linux({ RXSTORE_ROOT: '/backup/rx', REASONIX_STATE_HOME: '/env/state' });
    expect(await resolveStoreRoots(machine, { stateHome: '/flag/state' })).toEqual({
      reasonixStateRoot: '/flag/state',
      // What a printed `reasonix` command must carry to look where rxstore looked.
      pinned: { REASONIX_STATE_HOME: '/flag/state' },
      roots: [{ kind: 'state', path: '/flag/state', lines: ['1.x', '2.x'] }],
    });
    const flagged = await resolveStoreRoots(linux({ REASONIX_HOME: '~/env-home' }), { home: '/flag/home' });
    expect(flagged.roots).toEqual([{ kind: 'state', path: '/flag/home', lines: ['1.x', '2.x'] }]);
    expect(flagged.pinned).toEqual({ REASONIX_HOME: '/flag/home' });
    expect((await resolveStoreRoots(linux({ REASONIX_HOME: '~/env-home' }))).pinned).toEqual({
      REASONIX_HOME: '/home/me/env-home',
    });
  });

  it('RXSTORE_ROOT reads one state root, or one store directory, only; Reasonix keeps its own state root', async () => {
    expect(await resolveStoreRoots(linux({ RXSTORE_ROOT: '~/backup/rx' }))).toEqual({
      reasonixStateRoot: '/home/me/.reasonix',
      pinned: {},
      roots: [{ kind: 'state', path: '/home/me/backup/rx', lines: [] }],
    });
    expect((await resolveStoreRoots(linux({ RXSTORE_ROOT: '/backup/rx/projects/-w/sessions-v4' }))).roots).toEqual([
      { kind: 'store', path: '/backup/rx/projects/-w/sessions-v4' },
    ]);
  });

  it('RXSTORE_ROOT naming a store directory lists that store alone', async () => {
    const machine = await buildStateRoot();
    const store = join(machine.stateRoot, 'projects', '-tmp-rxstore-fixture-ws-titled', 'sessions-v4');
    const { roots } = await resolveStoreRoots(linux({ RXSTORE_ROOT: store }, machine.home));
    const listed = [];
    for await (const session of (await listSessions(roots, { platform: 'linux' })).sessions) listed.push(session);
    expect(
      listed.map((session) => [session.id, session.slug, session.root, session.parent?.id ?? null]).sort(),
    ).toEqual(
      [
        [machine.ids.titledFork, '-tmp-rxstore-fixture-ws-titled', machine.stateRoot, machine.ids.titledParent],
        [machine.ids.titledParent, '-tmp-rxstore-fixture-ws-titled', machine.stateRoot, null],
      ].sort(),
    );
  });
});
