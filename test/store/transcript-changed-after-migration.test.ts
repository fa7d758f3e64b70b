// A JSONL transcript written to after its migration: Reasonix asked to resume it migrates it again under a new id,
// so the session migrated before and the transcript are two conversations, and what was written since is found.
import { appendFile, cp, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const line = (role: string, content: string) => `${JSON.stringify({ role, content })}\n`;

interface Machine {
  base: string;
  home: string;
  workspace: string;
  transcript: string;
  cli: (args: string[]) => ReturnType<typeof runCliChild>;
}

/** A transcript of one exchange about zebras, migrated by rxstore, in a workspace of its own. */
async function migratedTranscript(): Promise<Machine & { migratedId: string }> {
  const base = await realpath(await tempDir('rxstore-changed-transcript-'));
  const home = join(base, 'home');
  const workspace = join(base, 'ws');
  const sessions = join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions');
  await mkdir(workspace, { recursive: true });
  await mkdir(sessions, { recursive: true });
  const transcript = join(sessions, 'zebra.jsonl');
  await writeFile(
    transcript,
    line('system', 'You are careful.') + line('user', 'Tell me about zebras') + line('assistant', 'Zebras graze.'),
  );
  const env = { ...process.env, XDG_CACHE_HOME: join(base, 'cache') };
  const cli = (args: string[]) => runCliChild([...args, '--home', home, '--cwd', workspace], { env });
  const migrated = await cli(['migrate', 'jsonl-to-v4', transcript]);
  expect(migrated.code, migrated.stderr).toBe(0);
  const migratedId = /: ([0-9a-f]{24}) -> /.exec(migrated.stdout)![1]!;
  return { base, home, workspace, transcript, cli, migratedId };
}

const rows = async (machine: Machine) => {
  const listed = await machine.cli(['ls', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { id: string; copies: { id: string }[] }[])
    .map((row) => ({ id: row.id, copies: row.copies.map((copy) => copy.id).sort() }))
    .sort((a, b) => a.id.localeCompare(b.id));
};

const hitSessions = async (machine: Machine, query: string, ...options: string[]) => {
  const found = await machine.cli(['search', query, '--json', ...options]);
  expect(found.code, found.stderr).toBeLessThan(2);
  return [
    ...new Set(
      found.stdout
        .split('\n')
        .filter(Boolean)
        .map((hit) => JSON.parse(hit).sessionId as string),
    ),
  ];
};

describe('a transcript written to after its migration', () => {
  it('stays one conversation with its migrated session while it holds what was migrated, copied or not', async () => {
    const machine = await migratedTranscript();
    expect(await rows(machine)).toEqual([{ id: machine.migratedId, copies: ['zebra', machine.migratedId].sort() }]);
    // A copy of the whole state root: every file changed since the migration by its change time, none by its bytes.
    const copy = { ...machine, home: join(machine.base, 'copied-home') };
    await cp(machine.home, copy.home, { recursive: true });
    copy.cli = (args) =>
      runCliChild([...args, '--home', copy.home, '--cwd', machine.workspace], {
        env: { ...process.env, XDG_CACHE_HOME: join(machine.base, 'cache-copy') },
      });
    expect(await rows(copy)).toEqual([{ id: machine.migratedId, copies: ['zebra', machine.migratedId].sort() }]);
  });

  it('is a conversation of its own once it changed, by size or by its bytes alone, and its new words are found', async () => {
    const machine = await migratedTranscript();
    await appendFile(machine.transcript, line('user', 'And the platypus?'));
    expect(await rows(machine)).toEqual(
      [
        { id: 'zebra', copies: ['zebra'] },
        { id: machine.migratedId, copies: [machine.migratedId] },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    // `migrate --all` takes it for one to migrate again, as Reasonix would.
    const planned = await machine.cli(['migrate', 'jsonl-to-v4', '--all', '--dry-run']);
    expect(planned.stdout).toContain('1 would be migrated');
    expect(await hitSessions(machine, 'platypus')).toEqual(['zebra']);
    expect(await hitSessions(machine, 'platypus', '--no-index')).toEqual(['zebra']);
    expect((await hitSessions(machine, 'zebras')).sort()).toEqual(['zebra', machine.migratedId].sort());

    // Rewritten in place to the same size: only its bytes tell.
    const same = await migratedTranscript();
    const text = await readFile(same.transcript, 'utf8');
    await writeFile(same.transcript, text.replace('Zebras graze.', 'Okapis graze.'));
    expect((await rows(same)).map((row) => row.id).sort()).toEqual(['zebra', same.migratedId].sort());
    expect(await hitSessions(same, 'okapis')).toEqual(['zebra']);
  });

  it('stays one with a session whose manifest names no size or digest of its source: nothing to tell a change by', async () => {
    const machine = await migratedTranscript();
    const manifestPath = join(
      machine.home,
      'projects',
      workspaceSlug(machine.workspace, 'linux'),
      'sessions-v4',
      machine.migratedId,
      'manifest.json',
    );
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { source: Record<string, unknown> };
    delete manifest.source.size;
    delete manifest.source.sha256;
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    await appendFile(machine.transcript, line('user', 'And the platypus?'));
    expect(await rows(machine)).toEqual([{ id: machine.migratedId, copies: ['zebra', machine.migratedId].sort() }]);
  });

  describe.skipIf(!reasonixBinary())(reasonixTitle('and the real Reasonix'), () => {
    it('is migrated again by Reasonix under the id rxstore names, the session migrated before going on alone', async () => {
      const machine = await migratedTranscript();
      await appendFile(machine.transcript, line('user', 'And the platypus?') + line('assistant', 'It lays eggs.'));
      const planned = await machine.cli(['migrate', 'jsonl-to-v4', '--all', '--dry-run']);
      expect(planned.code, planned.stderr).toBe(0);
      const plannedId = /: ([0-9a-f]{24}) -> /.exec(planned.stdout)![1]!;
      expect(plannedId).not.toBe(machine.migratedId);

      const mock = await startMockModel([{ text: 'Going on.' }, { text: 'Going on too.' }]);
      try {
        const resumeTranscript = await runReasonix({
          home: machine.home,
          cwd: machine.workspace,
          args: ['run', '--resume', 'zebra', 'What next?'],
          mock,
        });
        expect(resumeTranscript.code, resumeTranscript.stderr).toBe(0);
        const resumeOld = await runReasonix({
          home: machine.home,
          cwd: machine.workspace,
          args: ['run', '--resume', machine.migratedId, 'And the kangaroo?'],
          mock,
        });
        expect(resumeOld.code, resumeOld.stderr).toBe(0);
      } finally {
        await mock.close();
      }
      // Reasonix made the session rxstore said it would, from the transcript as it is now.
      expect(await rows(machine)).toEqual(
        [
          { id: plannedId, copies: ['zebra', plannedId].sort() },
          { id: machine.migratedId, copies: [machine.migratedId] },
        ].sort((a, b) => a.id.localeCompare(b.id)),
      );
      expect(await hitSessions(machine, 'platypus')).toEqual([plannedId]);
      expect(await hitSessions(machine, 'kangaroo')).toEqual([machine.migratedId]);
    });
  });
});
