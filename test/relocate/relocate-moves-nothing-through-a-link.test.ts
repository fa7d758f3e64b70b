// Relocate moves what is the state root's own: a store folder linked out of it (caches, content, the JSONL
// folder) is refused before anything moves, and a transcript's sidecar the new workspace already holds, with
// other bytes, is never removed for the one moved.
import { cp, mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { jsonlOf, movedProject, storeOf } from '../support/sessions/relocation-fixture.js';

describe('relocate and a folder of the store that is a link', () => {
  it.each(['.recovery-cache', '.query-cache', '.content-v1'])(
    'a %s folder linked out of the old store is refused, nothing moved, what it leads to kept',
    async (folder) => {
      const { base, home, from, to, v4 } = await movedProject();
      const outside = join(base, 'outside');
      await mkdir(join(outside, v4[0]!), { recursive: true });
      await writeFile(join(outside, v4[0]!, 'recovery-v1.bolt'), 'not rxstore’s');
      const linked = join(storeOf(home, from), folder);
      // The content store's own objects go out with it: what the sessions name is then found through the link.
      if (folder === '.content-v1') await cp(linked, outside, { recursive: true });
      await rename(linked, `${linked}.was`).catch(() => undefined);
      await symlink(outside, linked);
      const run = await runCliChild(['relocate', from, to, '--home', home]);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toContain(`rxstore: RX_RELOCATION_REFUSED: ${linked} is a symbolic link`);
      expect(run.stderr).toContain('nothing was moved');
      expect(await readdir(storeOf(home, from))).toEqual(expect.arrayContaining(v4));
      expect(await readFile(join(outside, v4[0]!, 'recovery-v1.bolt'), 'utf8')).toBe('not rxstore’s');
    },
  );

  it('a JSONL folder linked out of the state root is refused, and its transcripts stay there', async () => {
    const { base, home, from, to, jsonl } = await movedProject();
    const folder = jsonlOf(home, from);
    const outside = join(base, 'outside-sessions');
    await rename(folder, outside);
    await symlink(outside, folder);
    const before = await readdir(outside);
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toContain(`rxstore: RX_RELOCATION_REFUSED: ${folder} is a symbolic link`);
    expect(await readdir(outside)).toEqual(before);
    expect(before).toContain(`${jsonl}.jsonl`);
  });

  it("a transcript's sidecar the new workspace holds with other bytes is kept, and so is the old one", async () => {
    const { home, from, to, jsonl } = await movedProject();
    const [oldDir, newDir] = [jsonlOf(home, from), jsonlOf(home, to)];
    await mkdir(join(oldDir, `${jsonl}.ckpt`), { recursive: true });
    await writeFile(join(oldDir, `${jsonl}.ckpt`, '0001.json'), '{"turn":1}');
    await mkdir(newDir, { recursive: true });
    const planted = `${JSON.stringify({ id: jsonl, workspace_root: '/elsewhere' })}\n`;
    await writeFile(join(newDir, `${jsonl}.jsonl.meta`), planted);
    const oldMeta = await readFile(join(oldDir, `${jsonl}.jsonl.meta`), 'utf8');
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toContain(`${join(newDir, `${jsonl}.jsonl.meta`)} differs from`);
    expect(await readFile(join(oldDir, `${jsonl}.ckpt`, '0001.json'), 'utf8')).toBe('{"turn":1}');
    expect(await readFile(join(oldDir, `${jsonl}.jsonl.meta`), 'utf8')).toBe(oldMeta);
    expect(await readFile(join(newDir, `${jsonl}.jsonl.meta`), 'utf8')).toBe(planted);
  });
});
