import { execFileSync } from 'node:child_process';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goUnquote } from '../../../src/text/go-unquote.js';
import { runCliChild } from '../../support/cli-child.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

/** Folder names Go's %q escapes in the session-context line Reasonix names its workspace with. */
const NAMES = ['q"uo\\te', 'line\nbreak', 'tab\there', 'bell\u0007', 'ü and 日本', 'c1\u009b31m', 'sep\u2028line'];

describe('goUnquote', () => {
  it("reads Go's escapes, and refuses what Go would not unquote", () => {
    expect(goUnquote('a\\"b\\\\c\\n\\t\\x41\\u00fc\\U0001F600\\101')).toBe('a"b\\c\n\tAü😀A');
    expect(goUnquote('\\xc3\\xbc')).toBe('ü');
    for (const bad of ['a"b', 'a\\', 'a\\q', 'a\\x4', 'a\\uD800', 'a\\400'])
      expect(goUnquote(bad), bad).toBeUndefined();
  });
});

describe.skipIf(!reasonixBinary())(
  reasonixTitle("a workspace whose name Go's %q escapes, as Reasonix 1.38.11 writes it"),
  () => {
    it('is listed by its own path, from which Reasonix resumes it', async () => {
      const base = await realpath(await tempDir('rxstore-quoted-ws-'));
      const home = join(base, 'home');
      const mock = await startMockModel(NAMES.flatMap(() => [{ text: 'Made.' }, { text: 'Resumed.' }]));
      try {
        const made = new Map<string, string>();
        for (const name of NAMES) {
          const folder = join(base, 'ws', name);
          await mkdir(folder, { recursive: true });
          const run = await runReasonix({ home, cwd: folder, args: ['run', `in ${name}`], mock });
          expect(run.code, run.stderr).toBe(0);
          made.set(folder, name);
        }
        const listed = await runCliChild(['ls', '--json', '--no-cache', '--home', home]);
        expect(listed.code, listed.stderr).toBe(0);
        const rows = JSON.parse(listed.stdout) as { id: string; workspace: string; workspaceFrom: string }[];
        expect(new Set(rows.map((row) => row.workspace))).toEqual(new Set(made.keys()));
        expect(new Set(rows.map((row) => row.workspaceFrom))).toEqual(new Set(['session-context']));
        // The path ls gives is the folder Reasonix resumes the session from, and where's command goes there as printed.
        for (const row of rows) {
          const where = await runCliChild(['where', row.id, '--home', home, '--cwd', base]);
          const cd = /^ {2}to resume: (cd .*?) && /m.exec(where.stdout)?.[1];
          expect(cd, where.stdout).toBeDefined();
          expect(execFileSync('bash', ['-c', `${cd} && pwd`], { encoding: 'utf8' })).toBe(`${row.workspace}\n`);
          const run = await runReasonix({
            home,
            cwd: row.workspace,
            args: ['run', '--resume', row.id, 'Again?'],
            mock,
          });
          expect(run.code, run.stderr).toBe(0);
        }
      } finally {
        await mock.close();
      }
    });
  },
);
