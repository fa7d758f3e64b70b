import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planRelocation, relocate, RxError, type RelocationOptions } from '../../src/index.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { readJsonlSession } from '../../src/store/jsonl/read-jsonl-session.js';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCliChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';
import { jsonlOf, movedProject, sessionsUnder, storeOf } from '../support/sessions/relocation-fixture.js';
import { treeDigest } from '../support/tree-digest.js';
import { spawn } from 'node:child_process';

const options = (home: string, from: string, to: string, more: Partial<RelocationOptions> = {}): RelocationOptions => ({
  from,
  to,
  home,
  env: {},
  ...more,
});

async function refusal(promise: Promise<unknown>): Promise<RxError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RxError);
  return error as RxError;
}

/** Holds Reasonix's OS lock on `file` in another process until released. */
async function holdLock(file: string) {
  const child = spawn(process.execPath, [join(repoRoot, 'test', 'support', 'children', 'hold-lock.mjs'), 'os', file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve()),
  );
  return {
    release: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

describe('relocate', () => {
  it('moves every session, its content, sidecars, map, titles and registry root, and rewrites only where the workspace is recorded', async () => {
    const project = await movedProject();
    const { home, from, to, v4, jsonl } = project;
    const records = await Promise.all(
      v4.map(async (id) => (await readSession(join(storeOf(home, from), id))).projection.transcript.length),
    );
    const report = await relocate(await planRelocation(options(home, from, to)));
    expect(report.moved.sort()).toEqual([...v4, jsonl].sort());
    expect(report.left).toEqual([]);
    await expect(readdir(join(home, 'projects'))).resolves.toEqual([workspaceSlug(to, 'linux')]);
    const store = storeOf(home, to);
    for (const [index, id] of v4.entries()) {
      const read = await readSession(join(store, id));
      expect(read.status).toBe('ok');
      expect(read.payloadRefs).toBeGreaterThan(0);
      expect(read.projection.transcript.length).toBe(records[index]);
    }
    expect(JSON.parse(await readFile(join(store, v4[0]!, 'header.json'), 'utf8')).cwd).toBe(to);
    const meta = await readFile(join(jsonlOf(home, to), `${jsonl}.jsonl.meta`), 'utf8');
    expect(JSON.parse(meta).workspace_root).toBe(to);
    // Every other byte of the meta is as it was: the title keeps its characters as written.
    expect(meta).toContain('"custom_title": "A & B <x>"');
    expect((await readJsonlSession(join(jsonlOf(home, to), `${jsonl}.jsonl`))).status).toBe('ok');
    expect(JSON.parse(await readFile(join(jsonlOf(home, to), '.titles.json'), 'utf8'))).toEqual({
      [`${jsonl}.jsonl`]: 'JSONL title',
    });
    const map = JSON.parse(await readFile(join(store, 'migration-map.json'), 'utf8'));
    expect(map.entries[0].sourcePath).toBe(join(jsonlOf(home, to), `${jsonl}.jsonl`));
    const registry = JSON.parse(await readFile(join(home, 'desktop', 'workspace-state-v1.json'), 'utf8'));
    // Whole paths: the workspace of the folder moved, never the one of `<old>-docker`.
    expect([registry.workspaces.w1.root, registry.workspaces.w2.root]).toEqual([to, `${from}-docker`]);
    await expect(readdir(home)).resolves.not.toContain('.rxstore-relocation.json');
  });

  it('--dry-run prints the plan and changes nothing', async () => {
    const { home, from, to, v4 } = await movedProject();
    const before = await treeDigest(home);
    const run = await runCliChild(['relocate', from, to, '--home', home, '--dry-run']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const id of v4) expect(run.stdout).toContain(`move  ${id}  sessions-v4`);
    expect(run.stdout).toContain('dry run: nothing was changed');
    expect(await treeDigest(home)).toBe(before);
  });

  it('touches nothing of /p/app-docker when /p/app moves', async () => {
    const { home, from, to, v4 } = await movedProject();
    const docker = await sessionsUnder(home, `${from}-docker`, 1, 'd');
    const dockerBefore = await treeDigest(join(home, 'projects', workspaceSlug(`${from}-docker`, 'linux')));
    await relocate(await planRelocation(options(home, from, to)));
    expect(await treeDigest(join(home, 'projects', workspaceSlug(`${from}-docker`, 'linux')))).toBe(dockerBefore);
    expect(
      (await readdir(storeOf(home, to)))
        .filter((name) => !name.startsWith('.') && !name.startsWith('migration-map.json'))
        .sort(),
    ).toEqual(v4);
    expect(docker).toHaveLength(1);
  });

  it('merges into a new workspace that has sessions of its own, and refuses a clash of ids before anything moves, naming it', async () => {
    const { home, from, to, v4 } = await movedProject();
    const own = await sessionsUnder(home, to, 1, 'b');
    await relocate(await planRelocation(options(home, from, to)));
    const ids = (await readdir(storeOf(home, to), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
    expect(ids.sort()).toEqual([...v4, ...own].sort());

    const clash = await movedProject();
    await sessionsUnder(clash.home, clash.to, 1, 'a');
    const before = await treeDigest(clash.home);
    const run = await runCliChild(['relocate', clash.from, clash.to, '--home', clash.home]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('RX_RELOCATION_REFUSED');
    expect(run.stderr).toContain(clash.v4[0]);
    expect(await treeDigest(clash.home)).toBe(before);
  });

  it('refuses, before anything moves, a session a running Reasonix holds, naming it', async () => {
    const { home, from, to, v4 } = await movedProject();
    const held = await holdLock(join(storeOf(home, from), v4[1]!, 'writer.lock'));
    try {
      const before = await treeDigest(home);
      const error = await refusal(planRelocation(options(home, from, to)));
      expect(error.code).toBe('RX_WRITER_OWNED');
      expect(error.message).toContain(v4[1]);
      expect(await treeDigest(home)).toBe(before);
    } finally {
      await held.release();
    }
  });

  it('says the old folder still exists and moves only with --force', async () => {
    const { home, from, to, v4 } = await movedProject();
    await mkdir(from, { recursive: true });
    const error = await refusal(planRelocation(options(home, from, to)));
    expect(error.code).toBe('RX_RELOCATION_REFUSED');
    expect(error.message).toContain(`${from} still exists`);
    const report = await relocate(await planRelocation(options(home, from, to, { force: true })));
    expect(report.moved).toEqual(expect.arrayContaining(v4));
  });

  it('refuses when another existing folder has the old folder’s slug, naming it, unless --force', async () => {
    const project = await movedProject();
    const from = join(project.base, 'p', 'a', 'b');
    const lookalike = join(project.base, 'p', 'a-b');
    await mkdir(lookalike, { recursive: true });
    await sessionsUnder(project.home, from, 1, 'c');
    const error = await refusal(planRelocation(options(project.home, from, project.to)));
    expect(error.code).toBe('RX_RELOCATION_REFUSED');
    expect(error.message).toContain(lookalike);
    const report = await relocate(await planRelocation(options(project.home, from, project.to, { force: true })));
    expect(report.moved).toHaveLength(1);
  });

  it('--session moves one session and --keep leaves the old copies', async () => {
    const { home, from, to, v4 } = await movedProject();
    const one = await relocate(await planRelocation(options(home, from, to, { session: v4[1]! })));
    expect(one.moved).toEqual([v4[1]]);
    await expect(readdir(storeOf(home, from))).resolves.toContain(v4[0]);
    await expect(readdir(storeOf(home, to))).resolves.toContain(v4[1]);
    expect((await readSession(join(storeOf(home, to), v4[1]!))).status).toBe('ok');

    const kept = await movedProject();
    await relocate(await planRelocation(options(kept.home, kept.from, kept.to, { keep: true })));
    for (const id of kept.v4) {
      expect((await readSession(join(storeOf(kept.home, kept.from), id))).status).toBe('ok');
      expect((await readSession(join(storeOf(kept.home, kept.to), id))).status).toBe('ok');
    }
    expect(
      JSON.parse(await readFile(join(storeOf(kept.home, kept.from), kept.v4[0]!, 'header.json'), 'utf8')).cwd,
    ).toBe(kept.from);
    expect(JSON.parse(await readFile(join(storeOf(kept.home, kept.to), kept.v4[0]!, 'header.json'), 'utf8')).cwd).toBe(
      kept.to,
    );
  });

  it('moves a workspace whose slug is over 255 bytes (cut, with the FNV suffix) to another such slug', async () => {
    const project = await movedProject();
    const deep = (root: string) =>
      join(root, ...Array.from({ length: 12 }, (_, index) => `folder-with-a-long-name-${index}`));
    const [from, to] = [deep(join(project.base, 'old')), deep(join(project.base, 'new'))];
    await mkdir(to, { recursive: true });
    const ids = await sessionsUnder(project.home, from, 1, 'e');
    expect(Buffer.byteLength(workspaceSlug(from, 'linux'))).toBe(255);
    await relocate(await planRelocation(options(project.home, from, to)));
    expect((await readSession(join(storeOf(project.home, to), ids[0]!))).status).toBe('ok');
    await expect(readdir(join(project.home, 'projects'))).resolves.not.toContain(workspaceSlug(from, 'linux'));
  });

  it('follows Windows rules given the platform: a mixed-case slug folder found, the new slug lower-cased, cwd matched without regard to case', async () => {
    const project = await movedProject();
    const [from, to] = ['C:\\Users\\Me\\Proj', 'C:\\Users\\Me\\Proj2'];
    // An older Reasonix made the slug folder in mixed case; NTFS finds it by the lower-cased name.
    const store = join(project.home, 'projects', 'C--Users-Me-Proj', 'sessions-v4');
    const ids = await sessionsUnder(project.home, '/unused', 1, 'f');
    await mkdir(join(project.home, 'projects', 'C--Users-Me-Proj'), { recursive: true });
    await rename(storeOf(project.home, '/unused'), store);
    await writeFile(
      join(store, ids[0]!, 'header.json'),
      `{"schemaVersion":1,"sessionId":"${ids[0]}","createdAt":"2026-11-30T05:50:59Z","cwd":"c:\\\\users\\\\me\\\\proj","origin":"new"}\n`,
    );
    const plan = await planRelocation({
      from,
      to,
      stateHome: project.home,
      env: {},
      platform: 'win32',
      folderExists: async (path) => path === to,
    });
    expect([plan.fromSlug, plan.toSlug]).toEqual(['c--users-me-proj', 'c--users-me-proj2']);
    await relocate(plan);
    const moved = join(project.home, 'projects', 'c--users-me-proj2', 'sessions-v4', ids[0]!);
    expect((await readSession(moved)).status).toBe('ok');
    expect(JSON.parse(await readFile(join(moved, 'header.json'), 'utf8')).cwd).toBe(to);
  });

  it('ls and where say a session’s workspace folder is gone and print the relocate command; once relocated, they do not', async () => {
    const { home, from, to, v4 } = await movedProject();
    const listed = async () =>
      JSON.parse((await runCliChild(['ls', '--json', '--home', home])).stdout) as {
        id: string;
        workspace: string | null;
        relocate: string | null;
      }[];
    const before = (await listed()).find((session) => session.id === v4[0]);
    expect(before?.relocate).toBe(`rxstore relocate ${from} <new folder>`);
    const where = await runCliChild(['where', v4[0]!, '--home', home]);
    expect(where.stdout).toContain(
      `the folder no longer exists; to resume from where the project is now: rxstore relocate ${from} <new folder>`,
    );
    const text = await runCliChild(['ls', '--home', home]);
    expect(text.stdout).toContain(`${from} (gone)`);
    await relocate(await planRelocation(options(home, from, to)));
    const after = (await listed()).find((session) => session.id === v4[0]);
    expect([after?.workspace, after?.relocate]).toEqual([to, null]);
  });

  it('says a usage error in one line, exit 2: the same folder twice, a new folder that does not exist, a missing argument', async () => {
    const { home, from, to, base } = await movedProject();
    const same = await runCliChild(['relocate', to, `${to}/`, '--home', home]);
    expect([same.code, same.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(same.stderr).toContain('both the old and the new workspace');
    const missing = await runCliChild(['relocate', from, join(base, 'nowhere'), '--home', home]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
    const one = await runCliChild(['relocate', from]);
    expect(one.code).toBe(2);
  });
});
