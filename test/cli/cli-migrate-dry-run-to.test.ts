// `migrate jsonl-to-v4 --dry-run` writes nothing and says what the real run then does; `--to`
// publishes into the store named, and the real Reasonix opens the session written there.
import { mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import {
  listSessionDirs,
  reasonixBinary,
  reasonixTitle,
  resumeWithReasonix,
  runReasonix,
} from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';
import { treeDigest } from '../support/tree-digest.js';

const QUESTION = 'Which port does the staging server use?';
const ANSWER = 'Port 8443, behind the proxy.';

/** A home, a workspace and a transcript in a folder of its own, outside any store. */
async function laidOut() {
  const base = await realpath(await tempDir('rxstore-migrate-options-'));
  const [home, workspace, folder] = [join(base, 'home'), join(base, 'ws'), join(base, 'old chats')];
  await Promise.all([mkdir(home), mkdir(workspace), mkdir(folder)]);
  const transcript = join(folder, 'staging notes.jsonl');
  const lines = [
    { role: 'system', content: 'You help.' },
    { role: 'user', content: QUESTION },
    { role: 'assistant', content: ANSWER },
  ];
  await writeFile(transcript, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return { base, home, workspace, folder, transcript };
}

const lineOf = (stdout: string) => {
  const [line, summary, ...rest] = stdout.trimEnd().split('\n');
  expect(rest).toEqual([]);
  return { line: line!.replace(/^\[1\/1\] /, ''), summary };
};

describe('rxstore migrate jsonl-to-v4 --dry-run', () => {
  it('writes nothing, names the id, directory and resume command the real run then uses, and after it says the transcript is migrated', async () => {
    const { base, home, workspace, transcript } = await laidOut();
    const store = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions-v4');
    const args = ['migrate', 'jsonl-to-v4', transcript, '--home', home, '--cwd', workspace];
    const untouched = await treeDigest(base);

    const dry = await runCliChild([...args, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = lineOf(dry.stdout);
    const id = /: ([0-9a-f]{24}) -> /.exec(planned.line)?.[1];
    expect(planned.line).toBe(
      `would migrate ${transcript}: ${id} -> ${store}/${id}; resume: cd ${workspace} && REASONIX_HOME=${home} reasonix --resume ${id}`,
    );
    expect(planned.summary).toBe('1 transcript: 0 migrated, 1 would be migrated, 0 already migrated, 0 failed');
    expect(await treeDigest(base)).toBe(untouched);

    const real = await runCliChild(args);
    expect(real.code, real.stderr).toBe(0);
    expect(lineOf(real.stdout).line).toBe(planned.line.replace(/^would migrate /, 'migrated '));

    const migrated = await treeDigest(base);
    const again = await runCliChild([...args, '--dry-run', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject([
      { source: transcript, report: { action: 'exists', targetId: id, targetDir: `${store}/${id}` } },
    ]);
    expect(await treeDigest(base)).toBe(migrated);
    // Run again, its line says what its count says.
    const twice = await runCliChild(args);
    expect(twice.code, twice.stderr).toBe(0);
    expect(lineOf(twice.stdout).line).toBe(planned.line.replace(/^would migrate /, 'already migrated '));
    expect(lineOf(twice.stdout).summary).toBe(
      '1 transcript: 0 migrated, 0 would be migrated, 1 already migrated, 0 failed',
    );
  });
});

describe('rxstore migrate jsonl-to-v4 --to', () => {
  it.skipIf(!reasonixBinary())(
    reasonixTitle(
      `into another workspace's store under the state root: the printed command resumes it from that workspace, and Reasonix opens it there`,
    ),
    async () => {
      const { base, home, transcript } = await laidOut();
      const other = join(base, 'other project');
      await mkdir(other);
      const store = join(home, 'projects', workspaceSlug(other, 'linux'), 'sessions-v4');
      // A store named with --to is one that is there.
      await mkdir(store, { recursive: true });
      const run = await runCliChild([
        'migrate',
        'jsonl-to-v4',
        transcript,
        '--home',
        home,
        '--cwd',
        other,
        '--to',
        store,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const { line } = lineOf(run.stdout);
      const id = /: ([0-9a-f]{24}) -> /.exec(line)?.[1];
      expect(line).toBe(
        `migrated ${transcript}: ${id} -> ${store}/${id}; resume: cd '${other}' && REASONIX_HOME=${home} reasonix --resume ${id}`,
      );

      const mock = await startMockModel([{ text: 'Still 8443.' }]);
      try {
        const resumed = await runReasonix({
          home,
          cwd: other,
          args: ['run', '--resume', id!, 'Still the same port?'],
          mock,
        });
        expect(resumed.code, resumed.stderr).toBe(0);
        const sent = mock.chatRequests()[0]!.messages.map((message) => message.content);
        expect(sent).toEqual(expect.arrayContaining([QUESTION, ANSWER, 'Still the same port?']));
      } finally {
        await mock.close();
      }
      // Reasonix carried on in the session rxstore wrote; it made no other.
      expect(listSessionDirs(home)).toEqual([join(store, id!)]);
      const after = await readSession(join(store, id!));
      expect(after.status).toBe('ok');
      expect(after.projection.transcript.at(-1)!.message.content).toBe('Still 8443.');
    },
  );

  it.skipIf(!reasonixBinary())(
    reasonixTitle(
      'into a store Reasonix does not search: says so instead of a resume command, and the session written there is one Reasonix opens',
    ),
    async () => {
      const { base, home, workspace, transcript } = await laidOut();
      const store = join(base, 'backup', 'sessions-v4');
      await mkdir(store, { recursive: true });
      const run = await runCliChild([
        'migrate',
        'jsonl-to-v4',
        transcript,
        '--home',
        home,
        '--cwd',
        workspace,
        '--to',
        store,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const { line } = lineOf(run.stdout);
      const id = /: ([0-9a-f]{24}) -> /.exec(line)?.[1];
      expect(line).toBe(
        `migrated ${transcript}: ${id} -> ${store}/${id}; resume: none: not a store \`reasonix --resume\` searches (<state root>/projects/<slug>/sessions-v4)`,
      );
      expect(await readdir(store)).toEqual(expect.arrayContaining([id, 'migration-map.json']));
      expect(listSessionDirs(home)).toEqual([]);

      const resumed = await resumeWithReasonix(join(store, id!), {
        workspace: join(base, 'scratch ws'),
        home: join(base, 'scratch home'),
        prompt: 'Still the same port?',
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.requests[0]!.messages.map((message) => message.content)).toEqual(
        expect.arrayContaining([QUESTION, ANSWER]),
      );
    },
  );
});
