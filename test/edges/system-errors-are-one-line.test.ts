// What the system refuses is said in one coded line, with the path and the system's reason in words, and
// exit 1: standard output that cannot be written (a full disk), a state root that cannot be listed or is a
// file. Exit 2 is kept for a root the user named that does not exist.
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rxstoreBin, type ChildResult } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { commandAsUser } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

/** Another user than root, for whom a folder's mode bars the way (root is let through any mode). */
const NOBODY = 65534;

/** The built CLI with standard output on `stdoutFd` (or a pipe), as `user` when the tests run as root. */
function run(args: string[], options: { stdoutFd?: number; user?: number } = {}): Promise<ChildResult> {
  const [command, argv] = commandAsUser(process.execPath, [rxstoreBin, ...args], options.user);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', options.stdoutFd ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const session = fixture('plain-chat');

describe.skipIf(!existsSync('/dev/full'))('standard output that cannot be written (> /dev/full)', () => {
  it.each([
    ['ls', '--state-home', session.root],
    ['--help'],
    ['inspect', '--help'],
    ['help', 'view'],
    ['--version'],
    ['cat', session.dir],
    ['inspect', session.dir],
    ['inspect', session.dir, '--json'],
    ['inspect', session.dir, '--messages'],
    ['view', session.dir, '--format', 'md'],
    ['export', session.dir, '--to', '-'],
  ])('rxstore %s … > /dev/full: one coded line, no stack, exit 1', async (...args) => {
    const full = openSync('/dev/full', 'w');
    try {
      const { code, stderr } = await run(args, { stdoutFd: full });
      expect(stderr).toBe('rxstore: RX_FILE_SYSTEM: standard output: no space left on device\n');
      expect(code).toBe(1);
    } finally {
      closeSync(full);
    }
  });
});

describe('a state root the system will not list', () => {
  it.each([
    ['ls', []],
    ['inspect', [session.id]],
    ['where', [session.id]],
  ] as const)('--state-home naming a file: %s says it is a file, a folder is needed, exit 2', async (command, rest) => {
    const file = join(await tempDir('rxstore-root-file-'), 'state');
    await writeFile(file, 'not a folder\n');
    const { code, stdout, stderr } = await run([command, ...rest, '--state-home', file]);
    expect(stderr).toBe(`rxstore: RX_PATH_KIND: ${file}: is a file, a folder is needed\n`);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  it.each([
    ['ls', []],
    ['inspect', [session.id]],
    ['where', [session.id]],
    ['view', ['--all', '--to', 'SITE']],
  ] as const)(
    'a state root without read permission: %s says "permission denied" once, not "no session matches", exit 1',
    async (command, rest) => {
      const parent = await tempDir('rxstore-root-denied-');
      const root = join(parent, 'state');
      await cp(session.root, root, { recursive: true });
      await chmod(root, 0o000);
      // The other user may pass through the folders above the root, and write the site beside it.
      await chmod(parent, 0o777);
      const site = join(parent, 'site');
      await mkdir(site, { mode: 0o777 });
      await chmod(site, 0o777);
      try {
        const { code, stdout, stderr } = await run(
          [command, ...rest.map((arg) => (arg === 'SITE' ? site : arg)), '--state-home', root],
          { user: NOBODY },
        );
        expect(stderr).toBe(`rxstore: RX_FILE_SYSTEM: ${root}: permission denied\n`);
        expect(stdout).toBe('');
        expect(code).toBe(1);
      } finally {
        await chmod(root, 0o755);
      }
    },
  );

  it('a state root the user named that does not exist is still "no sessions found", exit 2', async () => {
    const missing = join(await tempDir('rxstore-root-missing-'), 'typo');
    const { code, stderr } = await run(['ls', '--state-home', missing]);
    expect(stderr).toBe(`rxstore: RX_SESSION_NOT_FOUND: no sessions found (${missing}: no such directory)\n`);
    expect(code).toBe(2);
  });
});
