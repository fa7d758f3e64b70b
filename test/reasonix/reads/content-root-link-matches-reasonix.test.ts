// A store's content folder (`.content-v1`) that is a symbolic link to a folder holding its objects: Reasonix
// 1.38.11 follows it and goes on with the session; a link below it (`objects`) it does not follow. rxstore says
// what Reasonix does.
import { mkdir, rename, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { fixture } from '../../support/fixtures.js';
import { resumeCheck } from '../../support/reasonix/resume-check.js';
import { layForResume, reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

const source = fixture('payload-ref');

const cases: [string, string, 'ok' | 'damaged'][] = [
  ['the content folder a link to a folder elsewhere', '.content-v1', 'ok'],
  ['its objects folder a link to a folder elsewhere', '.content-v1/objects', 'damaged'],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle('a content store reached through a symbolic link, judged by Reasonix 1.38.11'),
  () => {
    it.concurrent.each(cases)('%s: rxstore says what Reasonix does', async (_, linked, expected) => {
      const home = await tempDir('rxstore-content-link-');
      const dir = await layForResume(source.dir, home, source.workspace);
      const folder = join(dirname(dir), linked);
      const elsewhere = join(await tempDir('rxstore-content-elsewhere-'), basename(folder));
      await mkdir(dirname(elsewhere), { recursive: true });
      await rename(folder, elsewhere);
      await symlink(elsewhere, folder);
      const read = await readSession(dir, { caches: false });
      expect(read.status, read.problems.map((problem) => problem.message).join('\n')).toBe(expected);
      const run = await resumeCheck(home, source.workspace, basename(dir));
      expect(run.code === 0 ? 'ok' : 'damaged', run.stderr).toBe(expected);
    });
  },
);
