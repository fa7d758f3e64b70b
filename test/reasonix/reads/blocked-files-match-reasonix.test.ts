import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession } from '../../support/faults/faults.js';
import { blockedFileCases, source } from '../../support/reasonix/blocked-files.js';
import { reasonixBinary, reasonixTitle, simpleWorkspaceSlug } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';

/**
 * Files Reasonix 1.38.11 must use to open a session, standing there as something else: it refuses to open
 * the session when it cannot take its writer lock or write its storage identity, and opens it when the
 * file is only stale or replaceable. rxstore's verdict is Reasonix's, and names the file.
 */
describe.skipIf(!reasonixBinary())(
  reasonixTitle(`the store's ownership lock as a directory, judged by Reasonix 1.38.11`),
  () => {
    it('is refused by both', async () => {
      const dir = await copySession(source.dir);
      const lock = join(dirname(dir), `.${basename(dir)}.ownership.lock`);
      await mkdir(lock);
      const home = await tempDir('rxstore-ownership-');
      await mkdir(
        join(
          home,
          'projects',
          simpleWorkspaceSlug(source.workspace),
          'sessions-v4',
          `.${basename(dir)}.ownership.lock`,
        ),
        { recursive: true },
      );
      const reasonix = await reasonixVerdict(dir, source.workspace, home);
      expect(reasonix.error).toContain('lock');
      expect((await readSession(dir)).refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: lock } });
    });
  },
);

describe.skipIf(!reasonixBinary())(
  reasonixTitle('files Reasonix must use to open a session, judged by Reasonix 1.38.11'),
  () => {
    it.concurrent.each(blockedFileCases)('%s', async (_, make, blocked) => {
      const dir = await copySession(source.dir);
      await make(dir);
      const read = await readSession(dir);
      const reasonix = await reasonixVerdict(dir, source.workspace);
      expect(reasonix.opens, reasonix.error).toBe(blocked === undefined);
      expect(read.status).toBe(reasonix.status);
      if (blocked) expect(read.refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: join(dir, blocked) } });
      else expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    });
  },
);
