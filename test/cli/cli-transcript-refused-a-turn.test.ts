// A JSONL transcript Reasonix migrates and opens but takes no new turn in: every command says so, as the real Reasonix does.
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixAbsentMessage, reasonixBinary, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const lines = [
  { role: 'system', content: 'You are a careful assistant.' },
  { role: 'user', content: 'Count the files, please' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_list', name: 'bash', arguments: '["ls", "-1"]' }] },
  { role: 'tool', tool_call_id: 'call_list', content: '3 files' },
  { role: 'assistant', content: 'Three files.' },
];

describe.skipIf(!reasonixBinary())(
  `a transcript whose tool call has array arguments ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`,
  () => {
    it('is turn-refused in ls, ls --json, where, inspect, export and salvage, in the words the real Reasonix refuses it with', async () => {
      const base = await realpath(await tempDir('rxstore-refused-transcript-'));
      const home = join(base, 'home');
      const workspace = join(base, 'ws');
      const sessions = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
      await mkdir(workspace, { recursive: true });
      await mkdir(sessions, { recursive: true });
      await writeFile(join(sessions, 'array-args.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      const env = { ...process.env, XDG_CACHE_HOME: join(base, 'cache') };
      const cli = (args: string[]) => runCliChild([...args, '--home', home, '--cwd', workspace], { env });

      // What the real Reasonix says when asked to go on (its run migrates the transcript first).
      const mock = await startMockModel([{ text: 'Going on.' }]);
      const run = await runReasonix({
        home,
        cwd: workspace,
        args: ['run', '--resume', 'array-args', 'And now?'],
        mock,
      }).finally(() => mock.close());
      expect(run.code).toBe(1);
      const said = run.stderr
        .split('\n')
        .find((line) => line.startsWith('error: '))!
        .slice('error: '.length);
      expect(said).toMatch(/^transcript gate: tool arguments must be a JSON object at message \d+$/);

      const listed = await cli(['ls', '--json', '--store', 'jsonl']);
      expect(listed.code, listed.stderr).toBe(0);
      const [row] = JSON.parse(listed.stdout) as { id: string; status: string; problem: string }[];
      expect(row).toMatchObject({ id: 'array-args', status: 'turn-refused' });
      expect(row!.problem).toContain(`"${said}"`);
      // A warm listing keeps the verdict.
      const warm = await cli(['ls', '--store', 'jsonl']);
      expect(warm.code).toBe(0);
      expect(warm.stdout.split('\n').find((line) => line.includes('array-args'))).toMatch(/turn-refused/);

      const where = await cli(['where', 'array-args']);
      expect(where.code, where.stderr).toBe(0);
      expect(where.stdout).toMatch(/jsonl {2}turn-refused /);
      expect(where.stdout).toContain(
        `a new turn: refused — Reasonix opens the session but refuses every new turn in it ("${said}")`,
      );

      const inspected = await cli(['inspect', join(sessions, 'array-args.jsonl')]);
      expect(inspected.code).toBe(1);
      expect(inspected.stdout).toContain(`RX_TURN_REFUSED`);
      expect(inspected.stdout).toContain(`"${said}"`);

      // Exported as it is, with a word that the copy is no more gone on with than the original.
      const exported = await cli(['export', join(sessions, 'array-args.jsonl'), '--to', join(base, 'copy.jsonl')]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toBe(
        `rxstore: warning: Reasonix opens the session but refuses every new turn in it ("${said}"); the export keeps it as it is: \`rxstore salvage\` writes a copy Reasonix goes on with\n`,
      );
      // Said before the export, whatever comes of it: here a file already there that holds something else.
      await writeFile(join(base, 'taken.jsonl'), 'mine\n');
      const refused = await cli(['export', join(sessions, 'array-args.jsonl'), '--to', join(base, 'taken.jsonl')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.split('\n')[0]).toContain(
        'rxstore: warning: Reasonix opens the session but refuses every new turn',
      );
      expect(refused.stderr).toContain('RX_EXPORT_REFUSED');

      // Salvage keeps the messages as they are, so its transcript is refused too: it says so, and points at migrate, which repairs it.
      const salvaged = await cli(['salvage', join(sessions, 'array-args.jsonl')]);
      expect(salvaged.code, salvaged.stderr).toBe(0);
      const copy = join(sessions, 'array-args-salvaged.jsonl');
      expect(salvaged.stdout).toContain(
        `\n  Reasonix opens the session but refuses every new turn in it ("${said}"): rxstore migrate jsonl-to-v4 ${copy} writes a session it goes on with\n`,
      );
      expect(salvaged.stdout).not.toContain('resume it with');
      const migrated = await cli(['migrate', 'jsonl-to-v4', copy]);
      expect(migrated.code, migrated.stderr).toBe(0);
      const id = /: ([0-9a-f]{24}) -> /.exec(migrated.stdout)![1]!;
      const again = await startMockModel([{ text: 'Going on.' }]);
      const goesOn = await runReasonix({
        home,
        cwd: workspace,
        args: ['run', '--resume', id, 'And now?'],
        mock: again,
      }).finally(() => again.close());
      expect(goesOn.stderr.split('\n').filter((line) => line.startsWith('error: '))).toEqual([]);
      expect(goesOn.code).toBe(0);
      await rm(base, { recursive: true, force: true });
    });
  },
);
