// `cat --records --cursor FILE` reads FILE only when it is a regular file of a cursor's size: a
// FIFO must not hang the command and a device must not be read until memory runs out.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const session = fixture('plain-chat').dir;

describe('cat --cursor reads only a small regular file', () => {
  it('a FIFO as the cursor is refused with one coded line naming it, at once', async () => {
    const dir = await tempDir('rxstore-cursor-fifo-');
    const fifo = join(dir, 'cursor');
    execFileSync('mkfifo', [fifo]);
    // Before the fix the command waited for a writer for ever: the kill makes that a failure, not a hang.
    const run = await runCliChild(['cat', session, '--records', '--cursor', fifo], { killAfterMs: 20_000 });
    expect(run.signal).toBeNull();
    // The wrong kind of path for a cursor, said before anything is read (as a --to of that kind is).
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^rxstore: RX_PATH_KIND: ${fifo}: is a FIFO`));
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a character device as the cursor is refused, not read', async () => {
    const run = await runCliChild(['cat', session, '--records', '--cursor', '/dev/zero'], { killAfterMs: 20_000 });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^rxstore: RX_PATH_KIND: \/dev\/zero: is a (character )?device/);
  });

  it('a regular file far larger than a cursor is refused as no cursor, naming it', async () => {
    const dir = await tempDir('rxstore-cursor-big-');
    const big = join(dir, 'cursor');
    await writeFile(big, Buffer.alloc(2 * 1024 * 1024, 0x20));
    const run = await runCliChild(['cat', session, '--records', '--cursor', big]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^rxstore: RX_CURSOR_MISMATCH: ${big}: not a cursor rxstore wrote`));
  });

  it('a missing cursor file still means everything, and the cursor kept then works', async () => {
    const dir = await tempDir('rxstore-cursor-new-');
    const file = join(dir, 'cursor');
    const first = await runCliChild(['cat', session, '--records', '--cursor', file]);
    expect(first.code).toBe(0);
    expect(first.stdout).not.toBe('');
    const second = await runCliChild(['cat', session, '--records', '--cursor', file]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('');
  });
});
