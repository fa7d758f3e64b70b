// A transcript and its `.jsonl.meta` are one thing to Reasonix: export and salvage publish the
// pair whole or not at all, and a re-run after a failure writes the same name.
import { appendFile, copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const jsonlSessions = join(
  fixture('jsonl-migrated').root,
  'projects',
  '-tmp-rxstore-fixture-ws-jsonl-migrated',
  'sessions',
);

/** The CLI with ENOSPC at one hit of the atomic writes. */
function withNoSpaceAt(hit: number): NodeJS.ProcessEnv {
  return { ...process.env, RXSTORE_FAIL_POINT: `write.atomic:${hit}:enospc` };
}

describe('a transcript and its meta appear together or not at all', () => {
  it.each([1, 2])(
    'export --to out.jsonl failing at write %i leaves neither file, and a re-run writes both',
    async (hit) => {
      const dir = await tempDir('rxstore-export-pair-');
      const out = join(dir, 'out.jsonl');
      const failed = await runCliChild(['export', fixture('plain-chat').dir, '--to', out], { env: withNoSpaceAt(hit) });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^rxstore: RX_FILE_SYSTEM: .*out\.jsonl(\.meta)?: no space left on device\n$/);
      expect(await readdir(dir)).toEqual([]);
      const again = await runCliChild(['export', fixture('plain-chat').dir, '--to', out]);
      expect(again.code, again.stderr).toBe(0);
      expect((await readdir(dir)).sort()).toEqual(['out.jsonl', 'out.jsonl.meta']);
    },
  );

  it.each([1, 2])(
    'salvage --to failing at write %i leaves neither file, and a re-run writes the same name',
    async (hit) => {
      const source = await tempDir('rxstore-salvage-pair-src-');
      const damaged = join(source, 'legacy-demo.jsonl');
      await copyFile(join(jsonlSessions, 'legacy-demo.jsonl'), damaged);
      await copyFile(join(jsonlSessions, 'legacy-demo.jsonl.meta'), `${damaged}.meta`);
      await appendFile(damaged, '{"role": "assistant", "content": \n');
      const to = await tempDir('rxstore-salvage-pair-to-');
      const failed = await runCliChild(['salvage', damaged, '--to', to], { env: withNoSpaceAt(hit) });
      expect(failed.code).toBe(1);
      expect(`${failed.stdout}${failed.stderr}`).toMatch(
        /RX_FILE_SYSTEM: .*legacy-demo-salvaged\.jsonl(\.meta)?: no space left on device/,
      );
      expect(await readdir(to)).toEqual([]);
      const again = await runCliChild(['salvage', damaged, '--to', to]);
      expect(again.code, again.stderr).toBe(0);
      expect((await readdir(to)).sort()).toEqual(['legacy-demo-salvaged.jsonl', 'legacy-demo-salvaged.jsonl.meta']);
    },
  );
});
