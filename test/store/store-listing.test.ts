// Listing a whole machine: each conversation once, with the right store, workspace and copies (docs/format.md §1–§2, §10–§12).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { listSessions, type ListOptions } from '../../src/store/listing/list-sessions.js';
import { openSession } from '../../src/store/open-session.js';
import { resolveStoreRoots, type ReadRoot } from '../../src/store/roots/roots.js';
import { buildStateRoot, V0_WORKSPACE, type BuiltMachine } from '../support/sessions/state-root.js';

async function machineRoots(machine: BuiltMachine): Promise<ReadRoot[]> {
  return (await resolveStoreRoots({ platform: 'linux', homeDir: machine.home, env: {}, cwd: machine.home })).roots;
}

async function listAll(
  roots: ReadRoot[],
  options: Partial<ListOptions> = {},
): Promise<{ sessions: ListedSession[]; warnings: string[] }> {
  const listing = await listSessions(roots, { platform: 'linux', ...options });
  const sessions: ListedSession[] = [];
  for await (const session of listing.sessions) sessions.push(session);
  return { sessions, warnings: listing.warnings };
}

/** The facts a row is judged by. */
const row = (session: ListedSession) => ({
  id: session.id,
  store: session.store,
  scope: session.scope,
  workspace: session.workspace,
  workspaceFrom: session.workspaceFrom,
  status: session.status,
  title: session.title,
  // `copies` is every copy, the listed one first: the others are what this test names.
  copies: session.copies.slice(1).map((copy) => [copy.id, copy.store, copy.status]),
  parent: session.parent?.id ?? null,
});

describe('listing a machine assembled from the fixtures', () => {
  it('lists each conversation once, newest store first, with its workspace and other copies', async () => {
    const machine = await buildStateRoot();
    const { ids, workspaces: ws } = machine;
    const { sessions, warnings } = await listAll(await machineRoots(machine));
    expect(warnings).toEqual([]);
    const expected = [
      {
        id: ids.v0,
        store: 'legacy',
        scope: 'global',
        workspace: V0_WORKSPACE,
        workspaceFrom: 'v0-meta',
        status: 'ok',
        title: 'Old v0 chat',
        copies: [],
        parent: null,
      },
      {
        id: ids.looseJsonl,
        store: 'jsonl',
        scope: 'global',
        workspace: null,
        workspaceFrom: null,
        status: 'ok',
        title: 'Quick question about regex lookbehind',
        copies: [],
        parent: null,
      },
      {
        id: ids.desktopImport,
        store: 'desktop-sessions-v5',
        scope: 'global',
        workspace: ws['jsonl-migrated'],
        workspaceFrom: 'header',
        status: 'ok',

        title: 'What files are here?',
        copies: [
          [ids.jsonlTwin, 'sessions-v4', 'ok'],
          [ids.jsonlStem, 'jsonl', 'ok'],
          [ids.jsonlStem, 'legacy', 'ok'],
        ],
        parent: null,
      },
      {
        id: ids.desktopOnly,
        store: 'desktop-sessions-v5',
        scope: 'global',
        workspace: ws.compacted,
        workspaceFrom: 'session-context',
        status: 'ok',
        title: expect.stringMatching(/^Turn 1: lorem ipsum/),
        copies: [],
        parent: null,
      },
      {
        id: ids.toolCalls,
        store: 'desktop-sessions-v5',
        scope: 'global',
        workspace: ws['tool-calls'],
        workspaceFrom: 'session-context',
        status: 'ok',

        title: 'List the files in this workspace.',
        copies: [[ids.toolCalls, 'sessions-v4', 'ok']],
        parent: null,
      },
      {
        id: ids.cjkGlobal,
        store: 'sessions-v4',
        scope: 'global',
        workspace: ws['cjk-emoji'],
        workspaceFrom: 'session-context',
        status: 'ok',
        title: expect.stringMatching(/^请用一句话/),
        copies: [],
        parent: null,
      },
      {
        id: ids.damaged,
        store: 'sessions-v4',
        scope: 'workspace',
        workspace: null,
        workspaceFrom: null,
        status: 'damaged',
        title: null,
        copies: [],
        parent: null,
      },
      {
        id: ids.titledParent,
        store: 'sessions-v4',
        scope: 'workspace',
        workspace: ws.titled,
        workspaceFrom: 'session-context',
        status: 'ok',
        title: 'Plan a small refactor of notes.txt.',
        copies: [],
        parent: null,
      },
      {
        id: ids.titledFork,
        store: 'sessions-v4',
        scope: 'workspace',
        workspace: ws.titled,
        workspaceFrom: 'session-context',
        status: 'ok',
        title: 'Refactor plan (fork)',
        copies: [],
        parent: ids.titledParent,
      },
      {
        id: ids.payloadRef,
        store: 'sessions-v4',
        scope: 'workspace',
        workspace: ws['payload-ref'],
        workspaceFrom: 'session-context',
        status: 'ok',
        title: expect.stringMatching(/^Summarise these lines/),
        copies: [],
        parent: null,
      },
      {
        id: ids.plainChat,
        store: 'sessions-v4',
        scope: 'workspace',
        workspace: ws['plain-chat'],
        workspaceFrom: 'session-context',
        status: 'ok',
        title: 'Say hello in one short sentence.',
        copies: [],
        parent: null,
      },
    ];
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(sessions.map(row).sort(byId)).toEqual(expected.sort(byId));

    // Counts are the messages a person reads: what `rxstore cat` prints, host session-context lines left out.
    for (const copy of sessions
      .flatMap((session) => [session, ...session.copies])
      .filter((copy) => copy.status === 'ok')) {
      let seen = 0;
      for await (const _message of (await openSession(copy.path)).personView()) seen += 1;
      expect(copy.messages, copy.path).toBe(seen);
    }
    expect(sessions.find((session) => session.id === ids.plainChat)!.messages).toBe(3);
    // Newest first: by when each conversation last committed an event, the time `inspect --json` reports.
    const times = sessions.map((session) => Date.parse(session.updatedAt ?? '') || 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const session of sessions.filter((listed) => listed.status === 'ok' && listed.store !== 'legacy')) {
      // Printed in one form, milliseconds in UTC, whatever precision the store wrote.
      expect(session.updatedAt, session.path).toBe(
        new Date(Date.parse((await (await openSession(session.path)).read()).lastCommitAt!)).toISOString(),
      );
    }
    // The damaged session names no workspace: the slug it sits under is reported instead.
    expect(sessions.find((session) => session.id === ids.damaged)).toMatchObject({
      slug: '-tmp-rxstore-fixture-ws-interrupted',
      problem: expect.stringMatching(/CRC/),
    });
  });

  it('never lists dot-directories (trash, staging, caches, content stores) or JSONL sidecars', async () => {
    const machine = await buildStateRoot();
    const { sessions } = await listAll(await machineRoots(machine));
    const copies = sessions.flatMap((session) => session.copies);
    const paths = copies.map((copy) => copy.path);
    // Below its root (itself a dot-directory: ~/.reasonix), no copy's path has a folder or file starting with a dot.
    expect(copies.filter((copy) => /[/\\]\./.test(copy.path.slice(copy.root.length)))).toEqual([]);
    expect(
      paths.filter((path) =>
        /\.(events|turns|conflicts|guardian|wire|adjudication|execution)\.jsonl$|subagent|subagents/.test(path),
      ),
    ).toEqual([]);
    expect(paths.filter((path) => path.endsWith(machine.ids.plainChat))).toHaveLength(1);
  });

  it('with verification, every session gets the same verdict, messages and title', async () => {
    const machine = await buildStateRoot();
    const roots = await machineRoots(machine);
    const quick = (await listAll(roots)).sessions.map(row);
    const verified = (await listAll(roots, { verify: true })).sessions.map(row);
    expect(verified).toEqual(quick);
  });

  it('reads only the stores asked for', async () => {
    const machine = await buildStateRoot();
    const { sessions } = await listAll(await machineRoots(machine), { stores: ['jsonl'] });
    expect(sessions.map((session) => [session.id, session.store, session.copies.length - 1]).sort()).toEqual([
      [machine.ids.jsonlStem, 'jsonl', 0],
      [machine.ids.looseJsonl, 'jsonl', 0],
    ]);
  });

  it('lists one workspace: the sessions that name it and the ones under its slug', async () => {
    const machine = await buildStateRoot();
    const roots = await machineRoots(machine);
    const titled = await listAll(roots, { workspace: machine.workspaces.titled });
    expect(titled.sessions.map((session) => session.id).sort()).toEqual(
      [machine.ids.titledFork, machine.ids.titledParent].sort(),
    );
    // Named by its session-context only: it sits in the global store.
    const cjk = await listAll(roots, { workspace: machine.workspaces['cjk-emoji'] });
    expect(cjk.sessions.map((session) => session.id)).toEqual([machine.ids.cjkGlobal]);
    // Damaged: it names nothing readable, but it sits under the workspace's slug.
    const interrupted = await listAll(roots, { workspace: machine.workspaces.interrupted });
    expect(interrupted.sessions.map((session) => [session.id, session.status])).toEqual([
      [machine.ids.damaged, 'damaged'],
    ]);
  });

  it('a session directory without a manifest, or with a wrong one, is listed as damaged', async () => {
    const machine = await buildStateRoot();
    const store = join(machine.stateRoot, 'projects', '-tmp-rxstore-fixture-ws-plain-chat', 'sessions-v4');
    await rm(join(store, machine.ids.plainChat, 'manifest.json'));
    await mkdir(join(store, 'not-a-session'));
    const { sessions } = await listAll(await machineRoots(machine), { stores: ['sessions-v4'] });
    const plain = sessions.filter((session) => session.slug === '-tmp-rxstore-fixture-ws-plain-chat');
    expect(plain.map((session) => [session.id, session.status, session.problem]).sort()).toEqual([
      [machine.ids.plainChat, 'damaged', 'manifest.json is missing'],
      ['not-a-session', 'damaged', 'manifest.json is missing'],
    ]);
  });

  it('a store or registry that cannot be read is reported, never shown as empty', async () => {
    const machine = await buildStateRoot();
    const blocked = join(machine.stateRoot, 'projects', '-tmp-blocked', 'sessions-v4');
    await mkdir(join(blocked, '..'), { recursive: true });
    await writeFile(blocked, 'not a directory');
    await writeFile(join(machine.stateRoot, 'desktop', 'workspace-state-v1.json'), '{"workspaces": [');
    const { warnings } = await listAll(await machineRoots(machine));
    expect(warnings).toEqual([
      expect.stringMatching(/^desktop registry unreadable: .*workspace-state-v1\.json/),
      expect.stringContaining(`cannot read ${blocked}`),
    ]);
  });

  const hasFlockUtility = spawnSync('flock', ['--version']).status === 0;
  it.skipIf(!hasFlockUtility)(
    `a session whose writer lock a running process holds is listed as locked${hasFlockUtility ? '' : ' — skipped: no flock(1) utility here to hold a lock independently'}`,
    async () => {
      const machine = await buildStateRoot();
      const lock = join(
        machine.stateRoot,
        'projects',
        '-tmp-rxstore-fixture-ws-plain-chat',
        'sessions-v4',
        machine.ids.plainChat,
        'writer.lock',
      );
      const holder = spawn('flock', ['-x', lock, 'sh', '-c', 'echo locked; read line'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      await once(holder.stdout!, 'data');
      try {
        const { sessions } = await listAll(await machineRoots(machine), { stores: ['sessions-v4'] });
        expect(sessions.find((session) => session.id === machine.ids.plainChat)?.status).toBe('locked');
      } finally {
        holder.stdin!.end('\n');
        await once(holder, 'close');
      }
    },
  );
});
