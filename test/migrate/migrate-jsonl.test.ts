import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../../src/migrate/jsonl-to-v4.js';
import { readSessionEvents } from '../../src/session/reading/read-events.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { rxstoreBin, runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { startMockModel, type MockModel } from '../support/reasonix/mock-model.js';
import {
  listSessionDirs,
  reasonixBinary,
  reasonixTitle,
  runReasonix,
  writeReasonixConfig,
} from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const migrated = fixture('jsonl-migrated');
const fixtureStore = join(migrated.dir, '..');
const jsonlDir = join(fixtureStore, '..', 'sessions');

async function batchesOf(dir: string) {
  const batches = [];
  for await (const item of readSessionEvents(dir)) if (item.type === 'batch') batches.push(item.value);
  return batches;
}

describe('rxstore migrate jsonl-to-v4 reproduces Reasonix 1.38.11', () => {
  it.skipIf(!reasonixBinary())(
    reasonixTitle(
      'gives a transcript the id, messages, commits, legacy bytes and map entry Reasonix gives it when it migrates it',
    ),
    async () => {
      // The target id hashes the transcript's absolute path: rxstore and then Reasonix migrate the
      // same transcript at the same path, a folder of this test's own.
      const base = await realpath(await tempDir('rxstore-jsonl-same-'));
      const stateRoot = join(base, 'state');
      const workspace = join(base, 'ws');
      const sessions = join(stateRoot, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
      await mkdir(workspace, { recursive: true });
      await cp(jsonlDir, sessions, { recursive: true });
      const metaPath = join(sessions, 'legacy-demo.jsonl.meta');
      await writeFile(
        metaPath,
        `${JSON.stringify({ ...JSON.parse(await readFile(metaPath, 'utf8')), workspace_root: workspace }, null, 2)}\n`,
      );
      const transcript = join(sessions, 'legacy-demo.jsonl');

      const report = await migrateJsonlToV4(transcript, { stateRoot, cwd: workspace });
      expect(report).toMatchObject({
        action: 'migrated',
        messages: 5,
        batches: 1,
        placement: 'transcript-workspace',
        workspace,
      });
      const v4Store = dirname(report.targetDir);
      expect(v4Store).toBe(join(dirname(sessions), 'sessions-v4'));
      const ours = {
        batches: await batchesOf(report.targetDir),
        session: await readSession(report.targetDir),
        legacy: await Promise.all(
          ['legacy-demo.jsonl', 'legacy-demo.jsonl.meta'].map((name) =>
            readFile(join(report.targetDir, 'legacy', name)),
          ),
        ),
        manifest: JSON.parse(await readFile(join(report.targetDir, 'manifest.json'), 'utf8')),
        map: JSON.parse(await readFile(join(v4Store, 'migration-map.json'), 'utf8')),
      };
      // The messages are the ones Reasonix migrated when the fixture was made.
      expect(ours.session.projection.transcript.map((entry) => entry.message)).toEqual(
        (await readSession(migrated.dir)).projection.transcript.slice(0, 5).map((entry) => entry.message),
      );

      // Now Reasonix migrates the same transcript, rxstore's copy gone, on resuming it.
      await rm(v4Store, { recursive: true, force: true });
      const mock = await startMockModel([{ text: 'Continuing the legacy session.' }]);
      try {
        const run = await runReasonix({
          home: stateRoot,
          cwd: workspace,
          args: ['run', '--resume', 'legacy-demo', 'And what now?'],
          mock,
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await mock.close();
      }
      expect(listSessionDirs(stateRoot)).toEqual([report.targetDir]);
      const theirs = (await batchesOf(report.targetDir)).filter((batch) =>
        batch.batch.operationId.startsWith('legacy-import:'),
      );
      const commits = (batches: typeof theirs) =>
        batches.map((batch) => [batch.batch.operationId, batch.batch.operationHash, batch.batch.writerGeneration]);
      expect(commits(ours.batches)).toEqual(commits(theirs));
      expect(ours.batches.map((batch) => batch.payloads)).toEqual(theirs.map((batch) => batch.payloads));
      expect(
        (await readSession(report.targetDir)).projection.transcript.slice(0, 5).map((entry) => entry.message),
      ).toEqual(ours.session.projection.transcript.map((entry) => entry.message));
      expect(ours.legacy).toEqual(
        await Promise.all(
          ['legacy-demo.jsonl', 'legacy-demo.jsonl.meta'].map((name) =>
            readFile(join(report.targetDir, 'legacy', name)),
          ),
        ),
      );
      expect(ours.manifest.source).toEqual(
        JSON.parse(await readFile(join(report.targetDir, 'manifest.json'), 'utf8')).source,
      );
      const withoutTime = ({ createdAt: _, ...entry }: Record<string, unknown>) => entry;
      expect(ours.map.entries.map(withoutTime)).toEqual(
        JSON.parse(await readFile(join(v4Store, 'migration-map.json'), 'utf8')).entries.map(withoutTime),
      );

      const again = await migrateJsonlToV4(transcript, { stateRoot, cwd: workspace });
      expect(again).toMatchObject({ action: 'exists', targetId: report.targetId });
    },
  );

  it.skipIf(!reasonixBinary())(
    reasonixTitle(`is resumed by Reasonix from the transcript's workspace without a second migration`),
    async () => {
      // Reasonix looks the migrated copy up from wherever the state root is: a folder of this test's own.
      const stateRoot = await lay(join(await tempDir('rxstore-jsonl-resume-'), 'state'));
      const transcript = join(
        stateRoot,
        'projects',
        '-tmp-rxstore-fixture-ws-jsonl-migrated',
        'sessions',
        'legacy-demo.jsonl',
      );
      const report = await migrateJsonlToV4(transcript, { stateRoot, cwd: migrated.workspace });
      const before = await readSession(report.targetDir);
      await mkdir(migrated.workspace, { recursive: true });
      const mock = await startMockModel([{ text: 'Picked up where we left off.' }]);
      try {
        const run = await runReasonix({
          home: stateRoot,
          cwd: migrated.workspace,
          args: ['run', '--resume', 'legacy-demo', 'Carry on.'],
          mock,
        });
        expect(run.code, run.stderr).toBe(0);
        const contents = mock.chatRequests()[0]!.messages.map((message) => message.content);
        expect(contents).toContain('There is one file: README.md.');
      } finally {
        await mock.close();
      }
      expect(listSessionDirs(stateRoot)).toEqual([report.targetDir]);
      const after = await readSession(report.targetDir);
      expect(after.status).toBe('ok');
      expect(after.batches).toBeGreaterThan(before.batches);
      expect(after.projection.transcript.at(-1)!.message.content).toBe('Picked up where we left off.');
      const map = JSON.parse(await readFile(join(report.targetDir, '..', 'migration-map.json'), 'utf8'));
      expect(map.entries).toHaveLength(1);
    },
  );
});

const transcriptLines = (answer: string) =>
  `${[
    { role: 'system', content: 'You are a careful assistant.' },
    { role: 'user', content: 'What did we decide?' },
    { role: 'assistant', content: answer },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n')}\n`;

interface SourceKind {
  kind: string;
  /** Lays the transcript under `base` (the state root is `base/home`); returns the path to name and the folders. */
  lay(
    base: string,
    home: string,
    answer: string,
  ): Promise<{ transcript: string; rxstoreCwd: string; workspace: string }>;
}

/** Every kind of place a transcript can be, and where Reasonix 1.38.11 resuming it puts the session. */
const SOURCE_KINDS: SourceKind[] = [
  {
    kind: 'a workspace’s JSONL store (into that workspace’s store, whatever --cwd is)',
    async lay(base, home, answer) {
      const workspace = join(base, 'project ws');
      const dir = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'chat.jsonl'), transcriptLines(answer));
      const meta = {
        id: 'chat',
        created_at: '2026-01-02T03:04:05Z',
        updated_at: '2026-01-02T03:05:05Z',
        scope: 'project',
        workspace_root: workspace,
      };
      await writeFile(join(dir, 'chat.jsonl.meta'), `${JSON.stringify(meta, null, 2)}\n`);
      return { transcript: join(dir, 'chat.jsonl'), rxstoreCwd: join(base, 'elsewhere'), workspace };
    },
  },
  {
    kind: 'the global sessions/ folder',
    async lay(base, home, answer) {
      await mkdir(join(home, 'sessions'), { recursive: true });
      await writeFile(join(home, 'sessions', 'notes.jsonl'), transcriptLines(answer));
      return {
        transcript: join(home, 'sessions', 'notes.jsonl'),
        rxstoreCwd: join(base, 'ws'),
        workspace: join(base, 'ws'),
      };
    },
  },
  {
    kind: 'a v0.x root',
    async lay(base, _home, answer) {
      const dir = join(base, 'xdg', 'reasonix', 'sessions');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'v0-chat.jsonl'), transcriptLines(answer));
      await writeFile(
        join(dir, 'v0-chat.meta.json'),
        `${JSON.stringify({ workspace: join(base, 'old v0 ws'), summary: 'Old chat' })}\n`,
      );
      return { transcript: join(dir, 'v0-chat.jsonl'), rxstoreCwd: join(base, 'ws'), workspace: join(base, 'ws') };
    },
  },
  {
    kind: 'a loose path reached through a symbolic link',
    async lay(base, _home, answer) {
      await mkdir(join(base, 'real'), { recursive: true });
      await writeFile(join(base, 'real', 'exported.jsonl'), transcriptLines(answer));
      await symlink(join(base, 'real'), join(base, 'link'));
      return {
        transcript: join(base, 'link', 'exported.jsonl'),
        rxstoreCwd: join(base, 'my ws'),
        workspace: join(base, 'my ws'),
      };
    },
  },
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle('rxstore migrate jsonl-to-v4 lands where Reasonix 1.38.11 puts it'),
  () => {
    it.each(SOURCE_KINDS)(
      'from $kind: the printed command resumes it, and Reasonix resuming the transcript makes no second session',
      async ({ lay }) => {
        const base = await realpath(await tempDir('rxstore-land-'));
        const home = join(base, 'home');
        const answer = `We decided on plan ${base.slice(-6)}.`;
        const { transcript, rxstoreCwd, workspace } = await lay(base, home, answer);
        await Promise.all([mkdir(rxstoreCwd, { recursive: true }), mkdir(workspace, { recursive: true })]);

        const run = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', home, '--cwd', rxstoreCwd]);
        expect(run.code, run.stderr).toBe(0);
        const [line, summary, ...rest] = run.stdout.trim().split('\n');
        expect(rest).toEqual([]);
        expect(summary).toBe('1 transcript: 1 migrated, 0 would be migrated, 0 already migrated, 0 failed');
        const id = /: ([0-9a-f]{24}) -> /.exec(line!)?.[1];
        expect(id, line).toBeDefined();
        const store = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions-v4');
        const quoted = workspace.includes(' ') ? `'${workspace}'` : workspace;
        const command = `cd ${quoted} && REASONIX_HOME=${home} reasonix --resume ${id}`;
        expect(line).toBe(`[1/1] migrated ${transcript}: ${id} -> ${join(store, id!)}; resume: ${command}`);
        const manifest = JSON.parse(await readFile(join(store, id!, 'manifest.json'), 'utf8'));
        expect(manifest.source.path).toBe(await realpath(transcript));

        const mock = await startMockModel([{ text: 'Picked up by id.' }, { text: 'Picked up by path.' }]);
        try {
          // The printed command, run as printed by a shell whose environment names no Reasonix home.
          const printed = await runPrinted(command, home, mock);
          expect(printed.code, printed.stderr).toBe(0);
          expect(mock.chatRequests()[0]!.messages.map((message) => message.content)).toContain(answer);
          expect(await sessionDirs(home)).toEqual([join(store, id!)]);

          // Reasonix resuming the transcript itself computes the same id and reuses the session.
          const byPath = await runReasonix({
            home,
            cwd: workspace,
            args: ['run', '--resume', transcript, 'And now?'],
            mock,
          });
          expect(byPath.code, byPath.stderr).toBe(0);
          expect(mock.chatRequests()[1]!.messages.map((message) => message.content)).toEqual(
            expect.arrayContaining([answer, 'Picked up by id.']),
          );
        } finally {
          await mock.close();
        }
        expect(await sessionDirs(home)).toEqual([join(store, id!)]);
        const map = JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8'));
        expect(map.entries.map((entry: { targetId: string }) => entry.targetId)).toEqual([id]);
        const after = await readSession(join(store, id!));
        expect(after.status).toBe('ok');
        expect(after.projection.transcript.at(-1)!.message.content).toBe('Picked up by path.');
      },
    );
  },
);

describe.skipIf(!reasonixBinary())(reasonixTitle('rxstore migrate jsonl-to-v4 without --cwd'), () => {
  it('uses the folder as the shell names it ($PWD through a link), as Reasonix picks its store', async () => {
    const base = await realpath(await tempDir('rxstore-pwd-'));
    const home = join(base, 'home');
    await mkdir(join(base, 'real ws'), { recursive: true });
    await symlink(join(base, 'real ws'), join(base, 'linked ws'));
    const linked = join(base, 'linked ws');
    await mkdir(join(home, 'sessions'), { recursive: true });
    const transcript = join(home, 'sessions', 'notes.jsonl');
    await writeFile(transcript, transcriptLines('Through the link.'));

    const child = spawn(
      process.execPath,
      [rxstoreBin, 'migrate', 'jsonl-to-v4', transcript, '--home', home, '--json'],
      { cwd: linked, env: { ...process.env, PWD: linked } },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const { report } = (
      JSON.parse(stdout) as { report: { targetId: string; targetDir: string; resume: string } }[]
    )[0]!;
    const store = join(home, 'projects', workspaceSlug(linked, 'linux'), 'sessions-v4');
    expect(report.targetDir).toBe(join(store, report.targetId));
    // Run from the folder the shell names (the link): the session resumes from here, no `cd` needed.
    expect(report.resume).toBe(`REASONIX_HOME=${home} reasonix --resume ${report.targetId}`);

    const mock = await startMockModel([{ text: 'Found it.' }]);
    try {
      const run = await runReasonix({
        home,
        cwd: linked,
        env: { PWD: linked },
        args: ['run', '--resume', report.targetId, 'Carry on.'],
        mock,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(mock.chatRequests()[0]!.messages.map((message) => message.content)).toContain('Through the link.');
    } finally {
      await mock.close();
    }
    expect(await sessionDirs(home)).toEqual([report.targetDir]);
  });
});

/** Every v4 session directory under a state root, in any store: `…/sessions-v4/<id>/manifest.json`. */
async function sessionDirs(stateRoot: string): Promise<string[]> {
  const entries = await readdir(stateRoot, { recursive: true });
  return entries
    .filter((entry) => /(^|\/)sessions-v4\/[^/.][^/]*\/manifest\.json$/.test(entry))
    .map((entry) => dirname(join(stateRoot, entry)))
    .sort();
}

/**
 * Runs a printed `cd … && REASONIX_HOME=… reasonix --resume <id>` with `sh`, where `reasonix` is the
 * real binary answering one prompt (`run`) and nothing in the environment names a Reasonix home.
 */
async function runPrinted(
  command: string,
  home: string,
  mock: MockModel,
): Promise<{ code: number | null; stderr: string }> {
  await writeReasonixConfig(home, mock.baseUrl);
  const bin = join(home, '..', 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'reasonix'), `#!/bin/sh\nexec '${reasonixBinary()}' run "$@" 'Carry on.'\n`);
  await chmod(join(bin, 'reasonix'), 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(home, '..'), PATH: `${bin}:${process.env.PATH ?? ''}` };
  for (const name of ['REASONIX_HOME', 'REASONIX_STATE_HOME', 'REASONIX_CACHE_HOME', 'XDG_CONFIG_HOME'])
    delete env[name];
  const child = spawn('sh', ['-c', command], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stderr };
}

/** Copies the fixture's JSONL store to the state-root path Reasonix used, replacing any earlier copy. */
async function lay(stateRoot: string): Promise<string> {
  const target = join(stateRoot, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated');
  await rm(stateRoot, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  await cp(jsonlDir, join(target, 'sessions'), { recursive: true });
  return stateRoot;
}
