import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../../support/cli-child.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * A shell inside a symlinked folder keeps the link in `$PWD`, and Reasonix (Go's os.Getwd) picks its store by
 * that path, not the resolved one: `where` run there says what Reasonix run there does.
 */
describe.skipIf(!reasonixBinary())(
  reasonixTitle('where, run in a folder reached through a symbolic link, judged by Reasonix 1.38.11'),
  () => {
    it("says what Reasonix does from there: the session is the real folder's, and the command goes there", async () => {
      const base = await realpath(await tempDir('rxstore-symlinked-cwd-'));
      const [home, real, link] = [join(base, 'home'), join(base, 'real'), join(base, 'link')];
      await mkdir(real);
      await symlink(real, link);
      const mock = await startMockModel([{ text: 'Made.' }, { text: 'Resumed.' }]);
      try {
        const made = await runReasonix({ home, cwd: real, env: { PWD: real }, args: ['run', 'Hello.'], mock });
        expect(made.code, made.stderr).toBe(0);
        const listed = await runCliChild(['ls', '--json', '--home', home]);
        const id = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
        const fromLink = await runReasonix({
          home,
          cwd: link,
          env: { PWD: link },
          args: ['run', '--resume', id, 'Again?'],
          mock,
        });
        const where = await runCliChild(['where', id, '--home', home], {
          cwd: link,
          env: { ...process.env, PWD: link },
        });
        expect(where.code, where.stderr).toBe(0);
        // Reasonix run in the link does not find it, and where says so, and sends the resume to the real folder.
        expect(fromLink.code).not.toBe(0);
        expect(where.stdout).toContain(`\`reasonix --resume\` from ${link}: no (other-workspace)`);
        expect(where.stdout).toContain(`to resume: cd ${real} && `);
        // $PWD as a shell may keep it (a doubled slash, a `.`, a slash at its end) names the same folder, cleaned.
        const unclean = await runCliChild(['where', id, '--home', home], {
          cwd: link,
          env: { ...process.env, PWD: `/${link}/./` },
        });
        expect(unclean.stdout).toBe(where.stdout);
      } finally {
        await mock.close();
      }
    });
  },
);
