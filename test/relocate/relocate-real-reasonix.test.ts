import { mkdir, readdir, readFile, realpath, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { listSessionDirs, reasonixAbsentMessage, reasonixBinary, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const slugOf = (folder: string) => workspaceSlug(folder, 'linux');

/** Two sessions the real Reasonix made in `workspace`, one with an answer long enough for the content store. */
async function reasonixSessions(home: string, workspace: string): Promise<string[]> {
  const mock = await startMockModel([
    { text: 'Short answer.' },
    { text: `Long answer: ${'the quick brown fox jumps '.repeat(4000)}` },
  ]);
  try {
    for (const prompt of ['Say something short.', 'Say something long.']) {
      const run = await runReasonix({ home, cwd: workspace, args: ['run', prompt], mock });
      expect(run.code, run.stderr).toBe(0);
    }
  } finally {
    await mock.close();
  }
  return listSessionDirs(home)
    .map((dir) => dir.split('/').at(-1)!)
    .sort();
}

describe.skipIf(!reasonixBinary())(
  `a project folder moved, then relocated ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`,
  () => {
    it('goes on with every session from the new folder, each new turn appended to the same session', async () => {
      const base = await realpath(await tempDir('rxstore-relocate-real-'));
      const home = join(base, 'home');
      const [before, after] = [join(base, 'src', 'app'), join(base, 'work', 'app')];
      await mkdir(before, { recursive: true });
      await mkdir(join(base, 'work'), { recursive: true });
      const ids = await reasonixSessions(home, before);
      expect(ids).toHaveLength(2);
      const oldStore = join(home, 'projects', slugOf(before), 'sessions-v4');
      const contentBefore = await readdir(join(oldStore, '.content-v1', 'objects'), { recursive: true });
      expect(contentBefore.length).toBeGreaterThan(0);
      const sequences = new Map(
        await Promise.all(ids.map(async (id) => [id, (await readSession(join(oldStore, id))).lastSequence] as const)),
      );

      // The user moves the project, as a user would.
      await rename(before, after);
      const relocated = await runCliChild(['relocate', before, after, '--home', home]);
      expect(relocated.stderr).toBe('');
      expect(relocated.code).toBe(0);
      expect(relocated.stdout).toContain('moved 2 sessions');
      // The command it prints resumes as printed: the state root it was pointed at goes with it.
      expect(relocated.stdout).toMatch(
        new RegExp(`^resume one: cd ${after} && REASONIX_HOME=${home} reasonix --resume (${ids.join('|')})$`, 'm'),
      );
      await expect(readdir(join(home, 'projects'))).resolves.toEqual([slugOf(after)]);

      // Before Reasonix writes a turn there, each session still names the old folder in its history: rxstore
      // says it belongs to the new one, the folder `reasonix --resume` finds it from, and says how to resume it.
      const listed = await runCliChild(['ls', '--json', '--no-cache', '--home', home]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(
        (JSON.parse(listed.stdout) as { id: string; workspace: string; workspaceFrom: string }[])
          .map(({ id, workspace, workspaceFrom }) => ({ id, workspace, workspaceFrom }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      ).toEqual(ids.map((id) => ({ id, workspace: after, workspaceFrom: 'store-slug' })));
      for (const id of ids) {
        const where = await runCliChild(['where', id, '--home', home, '--cwd', base]);
        expect(where.code, where.stderr).toBe(0);
        expect(where.stdout).toContain(`to resume: cd ${after} && `);
        expect(where.stdout).toContain(`reasonix --resume ${id}`);
      }
      const found = await runCliChild(['search', 'answer', '--json', '--home', home]);
      expect(found.code, found.stderr).toBe(0);
      const hits = found.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { workspace: string });
      expect(hits.length).toBeGreaterThan(0);
      expect(new Set(hits.map((hit) => hit.workspace))).toEqual(new Set([after]));

      const newStore = join(home, 'projects', slugOf(after), 'sessions-v4');
      const mock = await startMockModel([{ text: 'Going on, first.' }, { text: 'Going on, second.' }]);
      try {
        for (const id of ids) {
          const run = await runReasonix({ home, cwd: after, args: ['run', '--resume', id, 'And now?'], mock });
          expect(
            run.stderr.split('\n').filter((line) => line.startsWith('error')),
            run.stderr,
          ).toEqual([]);
          expect(run.code).toBe(0);
        }
      } finally {
        await mock.close();
      }
      // The same sessions went on: no new one was made, each log grew past what it held before the move.
      expect(
        listSessionDirs(home)
          .map((dir) => dir.split('/').at(-1)!)
          .sort(),
      ).toEqual(ids);
      for (const id of ids) {
        const read = await readSession(join(newStore, id));
        expect(read.status).toBe('ok');
        expect(read.lastSequence).toBeGreaterThan(sequences.get(id)!);
        const typed = read.projection.transcript
          .map(({ message }) => message)
          .filter((message) => message.role === 'user' && message.origin === 'user');
        expect(typed.at(-1)?.content).toBe('And now?');
        // Recorded history is never rewritten: the host's workspace line of the first turn still names the old folder.
        expect(JSON.stringify(read.projection.transcript[1]?.message)).toContain(before);
      }
      expect(await readFile(join(newStore, ids[0]!, 'manifest.json'), 'utf8')).toContain(ids[0]!);
    });
  },
);
