// `rxstore ls` on a real pseudo-terminal of a fixed width (through `script`), and in a pipe.
import { spawnSync } from 'node:child_process';
import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { rxstoreBin, runCliChild } from '../support/cli-child.js';
import { buildStateRoot, type BuiltMachine } from '../support/sessions/state-root.js';
import { hasScript, onTerminal } from '../support/terminal.js';

async function listedJson(machine: BuiltMachine): Promise<ListedSession[]> {
  return JSON.parse((await runCliChild(['ls', '--json', '--state-home', machine.stateRoot])).stdout) as ListedSession[];
}

describe.skipIf(!hasScript)('rxstore ls on a terminal', () => {
  it.each([80, 120])('fits every row in %i columns, the title cut with …, a header first', async (columns) => {
    const machine = await buildStateRoot();
    const lines = onTerminal(columns, ['ls', '--state-home', machine.stateRoot], { TZ: 'UTC' });
    expect(lines[0]).toMatch(/^UPDATED +STATUS +MSGS +ID +WORKSPACE +TITLE$/);
    const sessions = await listedJson(machine);
    expect(lines).toHaveLength(sessions.length + 1);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    expect(lines.some((line) => line.endsWith('…'))).toBe(true);
    // Each row starts with its session's (possibly shortened) id where the header says, and the shortened id is one rxstore takes.
    const idColumn = lines[0]!.indexOf('ID');
    sessions.forEach((session, index) => {
      const shown = lines[index + 1]!.slice(idColumn).split(' ')[0]!;
      expect(session.id.startsWith(shown), `${shown} for ${session.id}`).toBe(true);
      expect(shown.length).toBeGreaterThanOrEqual(Math.min(8, session.id.length));
    });
  });

  it.each([40, 60])(
    'in %i columns leaves out columns rather than cut the title to nothing; a shortened id is one every command takes',
    async (columns) => {
      const machine = await buildStateRoot();
      const sessions = await listedJson(machine);
      const lines = onTerminal(columns, ['ls', '--state-home', machine.stateRoot], { TZ: 'UTC' }).slice(
        0,
        sessions.length + 1,
      );
      const header = lines[0]!.split(/ +/);
      expect(header).toEqual(expect.arrayContaining(['ID', 'TITLE']));
      expect(header).not.toContain('WORKSPACE');
      const [idColumn, titleColumn] = [lines[0]!.indexOf('ID'), lines[0]!.indexOf('TITLE')];
      sessions.forEach((session, index) => {
        const line = lines[index + 1]!;
        expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
        const shown = line.slice(idColumn).split(' ')[0]!;
        expect(shown).not.toContain('…');
        expect(shown.length).toBeGreaterThanOrEqual(Math.min(8, session.id.length));
        expect(session.id.startsWith(shown), `${shown} for ${session.id}`).toBe(true);
        // A title is shown, not a column of "…".
        if (session.title)
          expect(stringWidth(line.slice(titleColumn).replaceAll('…', '').trim()), line).toBeGreaterThanOrEqual(
            Math.min(8, stringWidth(session.title)),
          );
      });
      // The id as shown is one a command takes.
      const shownId = lines[1]!.slice(idColumn).split(' ')[0]!;
      const inspected = await runCliChild(['inspect', shownId, '--json', '--state-home', machine.stateRoot]);
      expect((JSON.parse(inspected.stdout) as { id: string }).id).toBe(sessions[0]!.id);
    },
  );

  it('shows local time with its offset, or UTC with --utc', async () => {
    const machine = await buildStateRoot();
    const [newest] = await listedJson(machine);
    const at = Date.parse(newest!.updatedAt!);
    const tokyo = onTerminal(200, ['ls', '--state-home', machine.stateRoot], { TZ: 'Asia/Tokyo' })[1]!;
    const utc = onTerminal(200, ['ls', '--state-home', machine.stateRoot, '--utc'], { TZ: 'Asia/Tokyo' })[1]!;
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
    expect(tokyo.startsWith(`${iso(at + 9 * 3600_000)}+09  `)).toBe(true);
    expect(utc.startsWith(`${iso(at)}Z  `)).toBe(true);
  });
});

describe('rxstore ls in a pipe', () => {
  it('prints whole rows: full ids, whole titles and workspaces, copies as "+N copies"', async () => {
    const machine = await buildStateRoot();
    const run = await runCliChild(['ls', '--state-home', machine.stateRoot, '--utc']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    const sessions = await listedJson(machine);
    expect(lines).toHaveLength(sessions.length + 1);
    sessions.forEach((session, index) => {
      const line = lines[index + 1]!;
      expect(line).toContain(`  ${session.id}  `);
      if (session.title) expect(line).toContain(session.title);
      if (session.workspace) expect(line).toContain(session.workspace);
      // `copies` is every copy, the listed one first: the others are counted.
      if (session.copies.length > 2) expect(line).toContain(`+${session.copies.length - 1} copies`);
    });
    expect(run.stdout).not.toContain('…,');
  });
});

const asRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

/** A machine whose every folder anyone may read, with the one file `unreadable` (a path under the plain-chat session) readable by its owner only. */
async function withUnreadable(file: string): Promise<{ machine: BuiltMachine; path: string; dir: string }> {
  const machine = await buildStateRoot();
  const dir = join(
    machine.stateRoot,
    'projects',
    '-tmp-rxstore-fixture-ws-plain-chat',
    'sessions-v4',
    machine.ids.plainChat,
  );
  const open = async (folder: string): Promise<void> => {
    await chmod(folder, 0o755);
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await open(path);
      else await chmod(path, 0o644);
    }
  };
  await chmod(machine.home, 0o755);
  await open(machine.stateRoot);
  const path = join(dir, file);
  await chmod(path, 0o000);
  expect((await stat(path)).mode & 0o777).toBe(0);
  return { machine, path, dir };
}

/** Runs rxstore as a user who may not read what only its owner may: as root every file is readable, so it runs as `nobody` there. */
function runAsOther(argv: string[]) {
  return asRoot
    ? spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, rxstoreBin, ...argv],
        { encoding: 'utf8', cwd: '/' },
      )
    : spawnSync(process.execPath, [rxstoreBin, ...argv], { encoding: 'utf8' });
}

describe.skipIf(asRoot && !hasSetpriv)('an unreadable session', () => {
  it.each(['events.frames', 'manifest.json'])(
    'with %s unreadable is a warning and a row of its own, never damaged; the rest is listed',
    async (file) => {
      const { machine, path } = await withUnreadable(file);
      // No summary cache: `nobody` cannot write the run's cache folder, and this test is about the unreadable file.
      const argv = ['ls', '--state-home', machine.stateRoot, '--no-cache'];
      const run = runAsOther(argv);
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toBe(`rxstore: warning: ${path}: permission denied; listed as unreadable\n`);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.find((line) => line.includes(machine.ids.plainChat))).toMatch(
        /unreadable +0 .*\(.*permission denied\)$/,
      );
      expect(lines.filter((line) => / ok +\d+ /.test(line)).length).toBeGreaterThan(5);
      // Its row says it was not checked at all; every other one was read now.
      const listed = (JSON.parse(runAsOther([...argv, '--json']).stdout) as ListedSession[]).flatMap(
        (session) => session.copies,
      );
      expect(listed.filter((copy) => copy.checked === 'no').map((copy) => copy.id)).toEqual([machine.ids.plainChat]);
      expect(listed.filter((copy) => copy.checked !== 'no').every((copy) => copy.checked === 'now')).toBe(true);
    },
  );

  it.each(['events.frames', 'manifest.json'])(
    'with %s unreadable, inspect says the system would not let it be read, never that the session is damaged',
    async (file) => {
      const { path, dir } = await withUnreadable(file);
      const run = runAsOther(['inspect', dir]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`rxstore: RX_FILE_SYSTEM: ${path}: permission denied\n`);
      const json = runAsOther(['inspect', dir, '--json']);
      expect(json.status).toBe(1);
      expect(json.stdout + json.stderr).not.toMatch(/RX_MANIFEST_INVALID|damaged/);
    },
  );
});

describe.skipIf(!hasScript)('what a terminal is told of how rows were checked', () => {
  it('after a first ls, the next says how many rows came from the summary cache; --verify reads every log with a progress bar', async () => {
    const machine = await buildStateRoot();
    const first = onTerminal(200, ['ls', '--state-home', machine.stateRoot]);
    const sessions = await listedJson(machine);
    expect(first).toHaveLength(sessions.length + 1);
    const second = onTerminal(200, ['ls', '--state-home', machine.stateRoot]);
    expect(second.at(-1)).toBe(
      `0 read now, ${sessions.length} unchanged since the summary cache read them (--verify reads every log)`,
    );
    const quoted = [process.execPath, rxstoreBin, 'ls', '--state-home', machine.stateRoot, '--verify']
      .map((word) => `'${word}'`)
      .join(' ');
    const verified = spawnSync('script', ['-q', '-e', '-c', `stty cols 200 rows 50; ${quoted}`, '/dev/null'], {
      encoding: 'utf8',
    });
    expect(verified.status).toBe(1); // the machine holds a damaged session
    expect(verified.stdout).toContain(`] ${sessions.length}/${sessions.length}`);
    expect(verified.stdout).not.toContain('summary cache read them');
  });

  it.each([40, 60])(
    'in %i columns the line about the summary cache fits the terminal, said in short',
    async (columns) => {
      const machine = await buildStateRoot();
      const sessions = await listedJson(machine);
      onTerminal(200, ['ls', '--state-home', machine.stateRoot]);
      const lines = onTerminal(columns, ['ls', '--state-home', machine.stateRoot]);
      // Every line shown when one is missing: CI met one fewer, twice in some twenty runs, not yet reproduced.
      expect(lines, lines.join('\n')).toHaveLength(sessions.length + 2);
      expect(lines.at(-1)).toBe(`0 read, ${sessions.length} cached; --verify reads all`);
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    },
  );
});
