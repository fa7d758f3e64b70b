// Two writers of a transcript and its `.jsonl.meta` to one path at once (two `export --force` of different
// sessions) interleaved their renames, and could leave one's transcript beside the other's sidecar. A set of files
// is published under its folder's lock: while another holds it, nothing of the set is renamed into place.
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { writeFilesAtomic } from '../../src/fs/atomic-files.js';
import { OUTPUT_FILE_MODE } from '../../src/fs/file-modes.js';
import { tryLockHandle } from '../../src/fs/os-lock.js';
import { tempDir } from '../support/temp-dir.js';

describe('a pair of files published into a folder another writer holds', () => {
  it('waits for it: neither file appears until the folder is let go, then both', async () => {
    const dir = await tempDir('rxstore-pair-lock-');
    const folder = await open(dir, 'r');
    expect(tryLockHandle(folder, 'exclusive')).toBe(true);
    const path = join(dir, 'out.jsonl');
    const writing = writeFilesAtomic([
      { path: `${path}.meta`, data: '{"a":1}\n', mode: OUTPUT_FILE_MODE },
      { path, data: '{"role":"user"}\n', mode: OUTPUT_FILE_MODE },
    ]);
    let settled = false;
    void writing.finally(() => (settled = true));
    // Both temps written and synced: the writer is at its renames, and waits.
    for (let turn = 0; (await readdir(dir)).filter((name) => name.endsWith('.tmp')).length < 2; turn += 1) {
      expect(turn).toBeLessThan(500);
      await sleep(10);
    }
    await sleep(100);
    expect(settled).toBe(false);
    expect((await readdir(dir)).filter((name) => !name.startsWith('.'))).toEqual([]);
    await folder.close();
    await writing;
    expect((await readdir(dir)).sort()).toEqual(['out.jsonl', 'out.jsonl.meta']);
    expect(await readFile(path, 'utf8')).toBe('{"role":"user"}\n');
  });
});
