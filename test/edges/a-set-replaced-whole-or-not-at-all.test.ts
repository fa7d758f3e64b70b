// A set of files written over older ones (`export --force` of a transcript and its `.jsonl.meta`) replaced the
// sidecar, then failed at the transcript (another user's file in a sticky folder), and left the new sidecar
// beside the old transcript: the old sidecar was lost. Now the set stands whole and new, or whole and old.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFilesAtomic } from '../../src/fs/atomic-files.js';
import { OUTPUT_FILE_MODE } from '../../src/fs/file-modes.js';
import { tempDir } from '../support/temp-dir.js';

/** The rename that puts a file in place of `refused` fails, as the system refuses one in a sticky folder. */
const refusal = vi.hoisted(() => ({ refused: undefined as string | undefined, linkRefused: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const eperm = (syscall: string, path: string) =>
    Object.assign(new Error(`EPERM: operation not permitted, ${syscall} '${path}'`), {
      code: 'EPERM',
      errno: -1,
      syscall,
      path,
    });
  const rename = (async (from: string, to: string) => {
    if (to === refusal.refused && from.endsWith('.tmp')) throw eperm('rename', from);
    return fs.rename(from, to);
  }) as typeof fs.rename;
  const link = (async (from: string, to: string) => {
    if (refusal.linkRefused) throw eperm('link', from);
    return fs.link(from, to);
  }) as typeof fs.link;
  return { ...fs, default: { ...fs, rename, link }, rename, link };
});

afterEach(() => {
  refusal.refused = undefined;
  refusal.linkRefused = false;
});

async function oldPair() {
  const dir = await tempDir('rxstore-set-');
  const path = join(dir, 'out.jsonl');
  await writeFile(`${path}.meta`, 'old meta\n');
  await writeFile(path, 'old transcript\n');
  const set = [
    { path: `${path}.meta`, data: 'new meta\n', mode: OUTPUT_FILE_MODE },
    { path, data: 'new transcript\n', mode: OUTPUT_FILE_MODE },
  ];
  return { dir, path, set };
}

describe('a set of files written over older ones', () => {
  it('puts back what it replaced when a later file cannot be put in place, and names that file', async () => {
    const { dir, path, set } = await oldPair();
    refusal.refused = path;
    await expect(writeFilesAtomic(set)).rejects.toMatchObject({
      code: 'RX_FILE_SYSTEM',
      data: { file: path },
      message: expect.stringContaining('operation not permitted'),
    });
    expect(await readFile(`${path}.meta`, 'utf8')).toBe('old meta\n');
    expect(await readFile(path, 'utf8')).toBe('old transcript\n');
    expect((await readdir(dir)).sort()).toEqual(['out.jsonl', 'out.jsonl.meta']);
  });

  it('replaces nothing when an old file cannot be kept aside meanwhile', async () => {
    const { dir, path, set } = await oldPair();
    refusal.linkRefused = true;
    await expect(writeFilesAtomic(set)).rejects.toMatchObject({
      code: 'RX_FILE_SYSTEM',
      data: { file: `${path}.meta` },
    });
    expect(await readFile(`${path}.meta`, 'utf8')).toBe('old meta\n');
    expect(await readFile(path, 'utf8')).toBe('old transcript\n');
    expect((await readdir(dir)).sort()).toEqual(['out.jsonl', 'out.jsonl.meta']);
  });

  it('replaces both, and keeps nothing aside, when nothing fails', async () => {
    const { dir, path, set } = await oldPair();
    await writeFilesAtomic(set);
    expect(await readFile(`${path}.meta`, 'utf8')).toBe('new meta\n');
    expect(await readFile(path, 'utf8')).toBe('new transcript\n');
    expect((await readdir(dir)).sort()).toEqual(['out.jsonl', 'out.jsonl.meta']);
  });
});
