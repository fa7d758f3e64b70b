// `rxstore ls` and `rxstore where`, with `where`'s verdicts checked against the real Reasonix 1.38.11 (docs/format.md §13.1).
import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import type { SessionWhereabouts } from '../../src/store/locate-session.js';
import { runCliChild } from '../support/cli-child.js';
import { runCli } from '../support/inspect-json-schema.js';
import { startMockModel, type MockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix, writeReasonixConfig } from '../support/reasonix/reasonix.js';
import { fixture } from '../support/fixtures.js';
import { buildStateRoot } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';

describe('rxstore ls', () => {
  it('--json prints every conversation with id, store, path, workspace, title, updatedAt, messages, status and copies', async () => {
    const machine = await buildStateRoot();
    const listed = await runCli(['ls', '--json', '--state-home', machine.stateRoot]);
    expect(listed.code, listed.stderr).toBe(0);
    const sessions = JSON.parse(listed.stdout) as ListedSession[];
    // --state-home pins the state root, so the legacy root is not read (docs/format.md §1.4).
    expect(sessions).toHaveLength(10);
    for (const session of sessions) {
      expect(Object.keys(session)).toEqual(
        expect.arrayContaining([
          'id',
          'store',
          'path',
          'workspace',
          'title',
          'updatedAt',
          'messages',
          'status',
          'copies',
        ]),
      );
    }
    // A title or workspace is attributed to the copy it comes from, and that copy says the same.
    for (const session of sessions) {
      const titled = session.copies.find((copy) => copy.path === session.titleCopy);
      expect(titled?.title ?? null, session.id).toBe(session.title);
      const named = session.copies.find((copy) => copy.path === session.workspaceCopy);
      expect(named?.workspace ?? null, session.id).toBe(session.workspace);
    }
    const desktopImport = sessions.find((session) => session.id === machine.ids.desktopImport)!;
    // Every copy, the listed one first; the title and workspace name the copy they come from.
    expect(desktopImport.copies.map((copy) => [copy.id, copy.store, copy.path])).toEqual([
      [machine.ids.desktopImport, desktopImport.store, desktopImport.path],
      [
        machine.ids.jsonlTwin,
        'sessions-v4',
        join(
          machine.stateRoot,
          'projects',
          '-tmp-rxstore-fixture-ws-jsonl-migrated',
          'sessions-v4',
          machine.ids.jsonlTwin,
        ),
      ],
      [machine.ids.jsonlStem, 'jsonl', machine.paths.jsonlTranscript],
    ]);
  });

  it('prints a header and one line a conversation; --verify exits 1 when Reasonix would refuse one', async () => {
    const machine = await buildStateRoot();
    const listed = await runCli([
      'ls',
      '--state-home',
      machine.stateRoot,
      '--workspace',
      machine.workspaces.titled,
      '--utc',
    ]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^UPDATED +STATUS +MSGS +ID +WORKSPACE +TITLE$/);
    expect(lines.find((line) => line.includes(machine.ids.titledFork))).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ  ok +3  ${machine.ids.titledFork}  /tmp/rxstore-fixture-ws/titled  Refactor plan \\(fork\\)  \\(fork of ${machine.ids.titledParent}\\)$`,
      ),
    );
    // A workspace with no sessions is named in what ls says: the root has sessions, of other workspaces.
    const elsewhere = await tempDir('rxstore-no-sessions-here-');
    expect(await runCliChild(['ls', '--state-home', machine.stateRoot, '--workspace', elsewhere])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        new RegExp(`^rxstore: RX_SESSION_NOT_FOUND: no sessions of workspace ${elsewhere} found \\(.+\\)\n$`),
      ),
    });
    const verified = await runCli(['ls', '--verify', '--state-home', machine.stateRoot, '--store', 'sessions-v4']);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(
      new RegExp(`damaged +0  ${machine.ids.damaged}  slug -tmp-rxstore-fixture-ws-interrupted +\\(.*CRC`),
    );
  });

  it('rejects an unknown store name as a usage error', async () => {
    const result = await runCli(['ls', '--store', 'sessions-v9', '--state-home', '/nonexistent']);
    expect(result.code).toBe(2);
  });
});

describe('rxstore where', () => {
  it('says where each copy lives and which one `reasonix --resume` finds from the folder', async () => {
    const machine = await buildStateRoot();
    const where = await runCli([
      'where',
      machine.ids.jsonlTwin.slice(0, 10),
      '--json',
      '--state-home',
      machine.stateRoot,
      '--cwd',
      machine.workspaces['jsonl-migrated'],
    ]);
    expect(where.code, where.stderr).toBe(0);
    const [found, ...more] = JSON.parse(where.stdout) as SessionWhereabouts[];
    expect(more).toEqual([]);
    expect(found!.copies.map((copy) => [copy.store, copy.id, copy.resume.reason, copy.resume.command])).toEqual([
      [
        'desktop-sessions-v5',
        machine.ids.desktopImport,
        'desktop-store',
        expect.stringContaining(
          `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.desktopImport}`,
        ),
      ],
      [
        'sessions-v4',
        machine.ids.jsonlTwin,
        'resumes',
        `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.jsonlTwin}`,
      ],
      ['jsonl', 'legacy-demo', 'resumes', `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume legacy-demo`],
    ]);
    expect(found!.resume).toMatchObject({
      resumes: true,
      command: `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.jsonlTwin}`,
    });
  });

  it('asked about another folder (--cwd), prints the command that goes there first', async () => {
    const machine = await buildStateRoot();
    const folder = machine.workspaces['jsonl-migrated'];
    const where = await runCli([
      'where',
      machine.ids.jsonlTwin.slice(0, 10),
      '--state-home',
      machine.stateRoot,
      '--cwd',
      folder,
    ]);
    expect(where.code, where.stderr).toBe(0);
    expect(where.stdout).toContain(
      `  resume from ${folder}: cd ${folder} && REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.jsonlTwin}\n`,
    );
  });

  it('never suggests copying a desktop session over its copy in the workspace store', async () => {
    const machine = await buildStateRoot();
    const elsewhere = await tempDir('rxstore-where-cwd-');
    const where = await runCli([
      'where',
      machine.ids.toolCalls,
      '--json',
      '--state-home',
      machine.stateRoot,
      '--cwd',
      elsewhere,
    ]);
    const [found] = JSON.parse(where.stdout) as SessionWhereabouts[];
    const workspaceCopy = join(
      machine.stateRoot,
      'projects',
      '-tmp-rxstore-fixture-ws-tool-calls',
      'sessions-v4',
      machine.ids.toolCalls,
    );
    expect(found!.copies.map((copy) => [copy.store, copy.resume.reason, copy.resume.command])).toEqual([
      ['desktop-sessions-v5', 'desktop-store', null],
      [
        'sessions-v4',
        'other-workspace',
        `cd ${machine.workspaces['tool-calls']} && REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.toolCalls}`,
      ],
    ]);
    expect(found!.copies[0]!.resume.explanation).toContain(`its copy ${workspaceCopy} is the one to resume`);
    expect(found!.resume.command).toBe(
      `cd ${machine.workspaces['tool-calls']} && REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${machine.ids.toolCalls}`,
    );
  });

  it('names a damaged copy and gives no command', async () => {
    const machine = await buildStateRoot();
    const where = await runCli([
      'where',
      machine.ids.damaged,
      '--state-home',
      machine.stateRoot,
      '--cwd',
      machine.workspaces.interrupted,
    ]);
    expect(where.code).toBe(0);
    expect(where.stdout).toContain(
      `\`reasonix --resume\` from ${machine.workspaces.interrupted}: no (damaged) — Reasonix would refuse this copy: decode v4 frame: CRC check failed`,
    );
    expect(where.stdout).toContain('no command resumes it');
  });

  it('answers "no session matches" as Reasonix does, with where it looked; exit 2, nothing found', async () => {
    const machine = await buildStateRoot();
    const where = await runCli(['where', 'ffff0000', '--state-home', machine.stateRoot]);
    expect(where).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_SESSION_NOT_FOUND: no session matches "ffff0000" (read ${machine.stateRoot})\n`,
    });
  });

  it('where given a path says it takes ids and points at inspect, exit 2; a name on disk that is an id is the id', async () => {
    const root = fixture('plain-chat').root;
    const folder = await tempDir('rxstore-where-path-');
    await writeFile(join(folder, 'notes'), 'not a session\n');
    await mkdir(join(folder, '166cabf3'));
    const hint = (path: string, taker = 'where') =>
      `${path} is a path; ${taker} takes a session id or the start of one (for the session at a path: rxstore inspect ${path})`;
    for (const path of ['./notes', join(folder, 'notes'), 'some/dir', 'notes']) {
      const { code, stdout, stderr } = await runCliChild(['where', path, '--state-home', root], { cwd: folder });
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toBe(`rxstore: RX_USAGE: ${hint(path)}; see rxstore where --help\n`);
    }
    const id = await runCliChild(['where', '166cabf3', '--state-home', root], { cwd: folder });
    expect(id.code).toBe(0);
    expect(id.stdout).toContain('166cabf3b4a426faf1232bdb38827557');
    const unknown = await runCliChild(['where', 'beefcafe', '--state-home', root], { cwd: folder });
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('no session matches "beefcafe"') });
    const search = await runCliChild(['search', 'hello', '--session', './notes', '--state-home', root], {
      cwd: folder,
    });
    expect(search).toMatchObject({
      code: 2,
      stdout: '',
      // A usage error as every command's: its help named.
      stderr: `rxstore: RX_USAGE: ${hint('./notes', 'search --session')}; see rxstore search --help\n`,
    });
  });
});

const bin = reasonixBinary();

describe.skipIf(!bin)(reasonixTitle('where, judged by the real Reasonix'), () => {
  /**
   * Runs a command `where` printed in bash, as a person would paste it: no Reasonix variable in the
   * environment, HOME a folder whose own ~/.reasonix has the mock provider and no sessions, and
   * `reasonix` standing for `reasonix run` against the mock.
   */
  async function runPrinted(
    command: string,
    cwd: string,
    mock: MockModel,
    personalHome?: string,
  ): Promise<{ code: number | null; stderr: string }> {
    const binDir = await tempDir('rxstore-where-bin-');
    await writeFile(
      join(binDir, 'reasonix'),
      `#!/bin/sh\nexec '${bin}' run --permission-mode danger-full-access "$@" 'Please continue.'\n`,
    );
    await chmod(join(binDir, 'reasonix'), 0o755);
    personalHome ??= await tempDir('rxstore-where-home-');
    await writeReasonixConfig(join(personalHome, '.reasonix'), mock.baseUrl);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: personalHome, PATH: `${binDir}:${process.env.PATH}` };
    for (const name of ['REASONIX_HOME', 'REASONIX_STATE_HOME', 'REASONIX_CACHE_HOME', 'XDG_CONFIG_HOME'])
      delete env[name];
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stderr };
  }

  it.each([
    [
      "under another workspace's slug",
      'plainChat',
      'other-workspace',
      'plain-chat',
      '--state-home',
      'REASONIX_STATE_HOME',
    ],
    ['in the global store', 'cjkGlobal', 'global-store', 'cjk-emoji', '--state-home', 'REASONIX_STATE_HOME'],
    [
      "under another workspace's slug, found with --home",
      'plainChat',
      'other-workspace',
      'plain-chat',
      '--home',
      'REASONIX_HOME',
    ],
  ] as const)(
    'a session %s: Reasonix answers "no session matches"; the command `where` prints resumes it as printed',
    async (_case, which, reason, workspaceOf, flag, variable) => {
      const machine = await buildStateRoot();
      const id = machine.ids[which];
      const workspace = machine.workspaces[workspaceOf];
      const elsewhere = await tempDir('rxstore-where-cwd-');
      await mkdir(workspace, { recursive: true });
      const mock = await startMockModel([{ text: 'Resumed.' }]);
      // A Reasonix home found with --home has its own configuration: the mock provider.
      if (flag === '--home') await writeReasonixConfig(machine.stateRoot, mock.baseUrl);

      const where = await runCli(['where', id, '--json', flag, machine.stateRoot, '--cwd', elsewhere]);
      expect(where.code, where.stderr).toBe(0);
      const [found] = JSON.parse(where.stdout) as SessionWhereabouts[];
      expect(found!.workspace).toBe(workspace);
      expect(found!.resume).toMatchObject({
        resumes: false,
        reason,
        command: expect.stringMatching(
          new RegExp(`cd ${workspace} && ${variable}=${machine.stateRoot} reasonix --resume ${id}$`),
        ),
      });
      const human = await runCli(['where', id, flag, machine.stateRoot, '--cwd', elsewhere]);
      expect(human.stdout).toContain(`  to resume: ${found!.resume.command}\n`);

      try {
        // Reasonix agrees that it is not found from there (and, for the global store, not even from its own workspace).
        for (const cwd of reason === 'global-store' ? [elsewhere, workspace] : [elsewhere]) {
          const refused = await runReasonix({
            home: machine.stateRoot,
            cwd,
            args: ['run', '--resume', id, 'Hello?'],
            mock,
          });
          expect(refused.code, refused.stderr).toBe(1);
          expect(refused.stderr).toContain(`no session matches "${id}"`);
        }
        // Without the variable the printed command carries, Reasonix looks in the person's own home and finds nothing.
        const bare = await runPrinted(
          found!.resume.command!.replace(`${variable}=${machine.stateRoot} `, ''),
          elsewhere,
          mock,
        );
        expect(bare.code).not.toBe(0);
        expect(bare.stderr).toContain(`no session matches "${id}"`);
        const resumed = await runPrinted(found!.resume.command!, elsewhere, mock);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(
          mock
            .chatRequests()
            .at(-1)
            ?.messages.some((message) => message.content === 'Please continue.'),
        ).toBe(true);
      } finally {
        await mock.close();
      }

      // From the workspace, `where` now finds it in that workspace's store.
      const after = await runCli(['where', id, '--json', flag, machine.stateRoot, '--cwd', workspace]);
      const [now] = JSON.parse(after.stdout) as SessionWhereabouts[];
      expect(now!.resume).toMatchObject({
        resumes: true,
        reason: 'resumes',
        command: `${variable}=${machine.stateRoot} reasonix --resume ${id}`,
      });
    },
  );

  it.each([
    ["under another workspace's slug", 'plainChat', 'plain-chat', 'workspace'],
    ['in the global store', 'cjkGlobal', 'cjk-emoji', 'global'],
  ] as const)(
    '`view` of a session %s named by its folder, outside the roots: the command on the page is the one `where` decides, and resumes it as printed',
    async (_case, which, workspaceOf, scope) => {
      const machine = await buildStateRoot();
      const id = machine.ids[which];
      const workspace = machine.workspaces[workspaceOf];
      await mkdir(workspace, { recursive: true });
      const elsewhere = await tempDir('rxstore-view-cwd-');
      const personalHome = await tempDir('rxstore-view-home-');
      const where = await runCli(['where', id, '--json', '--state-home', machine.stateRoot]);
      const [found] = JSON.parse(where.stdout) as SessionWhereabouts[];
      const folder = found!.copies.find((copy) => copy.store === 'sessions-v4' && copy.scope === scope)!.path;

      // Run as a person whose own Reasonix home is elsewhere: the session's state root is none Reasonix uses.
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: personalHome };
      for (const name of ['REASONIX_HOME', 'REASONIX_STATE_HOME', 'RXSTORE_ROOT', 'XDG_CONFIG_HOME']) delete env[name];
      const view = await runCliChild(['view', folder, '--format', 'md'], { cwd: elsewhere, env });
      expect(view.code, view.stderr).toBe(0);
      const command = /^- \*\*Resume:\*\* `(.+)`$/m.exec(view.stdout)?.[1];
      expect(command).toBeDefined();
      if (scope === 'workspace')
        expect(command).toBe(`cd ${workspace} && REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${id}`);
      // A global session is copied into its workspace's store under the state root Reasonix uses, then resumed there.
      else
        expect(command).toMatch(
          new RegExp(
            `^mkdir -p ${personalHome}/\\.reasonix/projects/[^ ]+/sessions-v4 && cp -R ${folder} .* && cd ${workspace} && reasonix --resume ${id}$`,
          ),
        );

      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        const resumed = await runPrinted(command!, elsewhere, mock, personalHome);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(
          mock
            .chatRequests()
            .at(-1)
            ?.messages.some((message) => message.content === 'Please continue.'),
        ).toBe(true);
      } finally {
        await mock.close();
      }
    },
  );

  it("a draft (no storageRevision) in the folder's own store: `where` says Reasonix imports it, and the command it prints goes on in a new session, the draft left as it is", async () => {
    const machine = await buildStateRoot();
    const id = machine.ids.plainChat;
    const workspace = machine.workspaces['plain-chat'];
    await mkdir(workspace, { recursive: true });
    const before = await runCli(['where', id, '--json', '--state-home', machine.stateRoot, '--cwd', workspace]);
    const draftPath = (JSON.parse(before.stdout) as SessionWhereabouts[])[0]!.copies.find(
      (copy) => copy.store === 'sessions-v4' && copy.resume.reason === 'resumes',
    )!.path;
    const manifestPath = join(draftPath, 'manifest.json');
    const { storageRevision, ...unpublished } = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<
      string,
      unknown
    >;
    expect(storageRevision).toBe(3);
    await writeFile(manifestPath, `${JSON.stringify(unpublished, null, 2)}\n`);
    const digest = async () =>
      createHash('sha256')
        .update(await readFile(manifestPath))
        .update(await readFile(join(draftPath, 'events.frames')))
        .digest('hex');
    const draftDigest = await digest();

    const where = await runCli(['where', id, '--json', '--state-home', machine.stateRoot, '--cwd', workspace]);
    const [found] = JSON.parse(where.stdout) as SessionWhereabouts[];
    const draft = found!.copies.find((copy) => copy.path === draftPath)!;
    expect(draft).toMatchObject({ draft: true, resume: { resumes: true, reason: 'imports-draft' } });
    expect(found!.resume).toMatchObject({
      resumes: true,
      reason: 'imports-draft',
      command: `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${id}`,
    });
    const human = await runCli(['where', id, '--state-home', machine.stateRoot, '--cwd', workspace]);
    expect(human.stdout).toContain(
      `\`reasonix --resume\` from ${workspace}: imports it into a new session — it is in this folder's sessions-v4 store, but a draft`,
    );

    const mock = await startMockModel([{ text: 'Resumed.' }]);
    try {
      const resumed = await runPrinted(found!.resume.command!, workspace, mock);
      expect(resumed.code, resumed.stderr).toBe(0);
      // The conversation goes on: the model is sent what the draft held, then the new message.
      const sent = mock.chatRequests().at(-1)!.messages;
      expect(sent.filter((message) => message.role === 'user').length).toBeGreaterThan(1);
      expect(sent.some((message) => message.content === 'Please continue.')).toBe(true);
    } finally {
      await mock.close();
    }
    // In a new session of the same store, which names the draft as its source; the draft is as it was.
    expect(await digest()).toBe(draftDigest);
    const store = join(draftPath, '..');
    const imported = [];
    for (const name of await readdir(store)) {
      if (name === id || name.startsWith('.')) continue;
      const manifest = JSON.parse(await readFile(join(store, name, 'manifest.json'), 'utf8').catch(() => '{}')) as {
        source?: { path?: string };
        storageRevision?: number;
      };
      if (manifest.source?.path === draftPath) imported.push({ name, storageRevision: manifest.storageRevision });
    }
    expect(imported).toEqual([{ name: expect.stringMatching(/^[0-9a-f]{32}$/), storageRevision: 3 }]);

    // `where` now gives the import, which Reasonix opens, before the draft.
    const after = await runCli(['where', id, '--json', '--state-home', machine.stateRoot, '--cwd', workspace]);
    const [now] = JSON.parse(after.stdout) as SessionWhereabouts[];
    expect(now!.resume).toMatchObject({
      resumes: true,
      reason: 'resumes',
      command: `REASONIX_STATE_HOME=${machine.stateRoot} reasonix --resume ${imported[0]!.name}`,
    });
    expect(now!.copies.find((copy) => copy.path === draftPath)?.resume.reason).toBe('imports-draft');
  });
});
