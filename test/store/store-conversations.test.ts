// One conversation, many copies (docs/format.md §10, §12): which copies rxstore counts as one, and which it keeps apart.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { V4_CODEC } from '../../src/codec/records.js';
import { createSession } from '../../src/session/writing/create-session.js';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { listSessions } from '../../src/store/listing/list-sessions.js';
import type { ReadRoot } from '../../src/store/roots/roots.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

/** A small session as rxstore's writer lays it down: no header, no session-context message. */
async function session(
  storeDir: string,
  sessionId?: string,
  extra: { source?: { path: string; size: number; sha256: string; version: string } } = {},
) {
  await mkdir(storeDir, { recursive: true });
  return createSession({
    storeDir,
    ...(sessionId ? { sessionId } : {}),
    ...extra,
    batches: [
      {
        operationId: 'session-create',
        events: [
          complete({ role: 'system', id: messageId(), content: 'System.' }),
          complete({ role: 'user', id: messageId(), origin: 'user', content: 'Hello there.' }),
        ],
      },
    ],
  });
}

async function list(roots: ReadRoot[]): Promise<ListedSession[]> {
  const listed: ListedSession[] = [];
  for await (const found of (await listSessions(roots, { platform: 'linux' })).sessions) listed.push(found);
  return listed;
}

const shape = (found: ListedSession) => [
  found.id,
  found.store,
  found.copies.slice(1).map((copy) => `${copy.store}:${copy.id}`),
  found.parent?.id ?? null,
];

describe('one conversation, many copies', () => {
  it('a v4 session named like a JSONL transcript in the sibling sessions-v4 is its same-id mirror', async () => {
    const state = await tempDir('rxstore-mirror-');
    await session(join(state, 'projects', '-w', 'sessions-v4'), 'notes-1');
    await mkdir(join(state, 'projects', '-w', 'sessions'), { recursive: true });
    await writeFile(
      join(state, 'projects', '-w', 'sessions', 'notes-1.jsonl'),
      '{"role":"user","content":"Hello there."}\n',
    );
    await writeFile(
      join(state, 'projects', '-w', 'sessions', 'notes-2.jsonl'),
      '{"role":"user","content":"Another one."}\n',
    );
    const listed = await list([{ kind: 'state', path: state, lines: ['1.x'] }]);
    expect(listed.map(shape).sort()).toEqual([
      ['notes-1', 'sessions-v4', ['jsonl:notes-1'], null],
      ['notes-2', 'jsonl', [], null],
    ]);
  });

  it('an unpublished draft and the session it was imported into are one conversation; a fork is its own', async () => {
    const state = await tempDir('rxstore-draft-');
    const store = join(state, 'projects', '-w', 'sessions-v4');
    const draft = await session(store);
    const manifestPath = join(draft.dir, 'manifest.json');
    const { storageRevision: _dropped, ...unpublished } = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(manifestPath, `${JSON.stringify(unpublished, null, 2)}\n`);
    const source = (path: string) => ({ path, size: 1, sha256: '0'.repeat(64), version: V4_CODEC });
    const imported = await session(store, undefined, { source: source(draft.dir) });
    const fork = await session(store, undefined, { source: source(imported.dir) });
    const orphan = await session(store, undefined, {
      source: source('/gone/projects/-w/sessions-v4/0123456789abcdef0123456789abcdef'),
    });
    const listed = await list([{ kind: 'state', path: state, lines: ['1.x'] }]);
    expect(listed.map(shape).sort()).toEqual(
      [
        [imported.id, 'sessions-v4', [`sessions-v4:${draft.id}`], null],
        [fork.id, 'sessions-v4', [], imported.id],
        [orphan.id, 'sessions-v4', [], '0123456789abcdef0123456789abcdef'],
      ].sort(),
    );
    expect(listed.find((found) => found.id === orphan.id)?.parent).toEqual({
      id: '0123456789abcdef0123456789abcdef',
      path: '/gone/projects/-w/sessions-v4/0123456789abcdef0123456789abcdef',
    });
  });

  it("a v0.x transcript in a legacy root and its import under its workspace's slug are one conversation", async () => {
    const home = await tempDir('rxstore-v0-');
    const state = join(home, '.reasonix');
    const legacy = join(home, '.config', 'reasonix');
    const workspace = '/srv/old-project';
    await mkdir(join(legacy, 'sessions'), { recursive: true });
    await writeFile(join(legacy, 'sessions', 'chat.jsonl'), '{"role":"user","content":"hi"}\n');
    await writeFile(join(legacy, 'sessions', 'chat.meta.json'), JSON.stringify({ workspace, summary: 'Old chat' }));
    const imported = join(state, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
    await mkdir(imported, { recursive: true });
    await writeFile(join(imported, 'chat.jsonl'), '{"role":"user","content":"hi"}\n');
    const listed = await list([
      { kind: 'state', path: state, lines: ['1.x'] },
      { kind: 'legacy', path: legacy },
    ]);
    expect(listed.map(shape)).toEqual([['chat', 'jsonl', ['legacy:chat'], null]]);
    expect(listed[0]).toMatchObject({
      title: 'Old chat',
      workspace,
      workspaceFrom: 'v0-meta',
      slug: '-srv-old-project',
    });
  });
});

describe('the workspace of a session', () => {
  it('from the desktop registry when the session names none; else only the slug it sits under', async () => {
    const state = await tempDir('rxstore-registry-');
    const desktop = await session(join(state, 'desktop-sessions-v5', 'by-id'));
    const global = await session(join(state, 'desktop-sessions-v5', 'by-id'));
    const slugOnly = await session(join(state, 'projects', '-srv-app', 'sessions-v4'));
    await mkdir(join(state, 'desktop'));
    await writeFile(
      join(state, 'desktop', 'workspace-state-v1.json'),
      JSON.stringify({
        version: 2,
        workspaces: {
          w1: { id: 'w1', root: '/srv/desktop-app', sessionIds: [desktop.id] },
          global: { id: 'global', root: '', sessionIds: [global.id] },
        },
      }),
    );
    const listed = await list([{ kind: 'state', path: state, lines: ['1.x'] }]);
    const facts = (id: string) => {
      const found = listed.find((candidate) => candidate.id === id)!;
      return [found.workspace, found.workspaceFrom, found.slug];
    };
    expect(facts(desktop.id)).toEqual(['/srv/desktop-app', 'desktop-registry', null]);
    expect(facts(global.id)).toEqual([null, null, null]);
    expect(facts(slugOnly.id)).toEqual([null, null, '-srv-app']);
  });
});
