// The CLI as a person uses it: sessions named by id everywhere, help and exit codes where people look,
// errors in one line, quiet about caches Reasonix rebuilds itself.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES_HELP } from '../../src/cli/exit-codes.js';
import { runCliChild } from '../support/cli-child.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { repoRoot } from '../support/paths.js';
import { buildStateRoot } from '../support/sessions/state-root.js';
import { tempDir } from '../support/temp-dir.js';

const COMMANDS = ['inspect', 'ls', 'where', 'cat', 'export', 'repair', 'salvage'];
const ESC = '\u001b';

describe('a session by id or the start of one, in every command', () => {
  it('inspect, cat, export, repair, salvage and where take a prefix, looked up under --state-home', async () => {
    const machine = await buildStateRoot();
    const prefix = machine.ids.plainChat.slice(0, 8);
    const at = ['--state-home', machine.stateRoot];
    const byPath = join(
      machine.stateRoot,
      'projects',
      '-tmp-rxstore-fixture-ws-plain-chat',
      'sessions-v4',
      machine.ids.plainChat,
    );

    const inspected = await runCli(['inspect', prefix, '--json', ...at]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ id: machine.ids.plainChat, path: byPath });
    expect((await runCli(['cat', prefix, ...at])).stdout).toBe((await runCli(['cat', byPath])).stdout);
    const exported = await runCli(['export', prefix, '--to', '-', '--format', 'json', ...at]);
    expect(JSON.parse(exported.stdout)).toMatchObject({ id: machine.ids.plainChat });
    expect((await runCli(['repair', prefix, '--dry-run', ...at])).stdout).toBe(
      `${byPath}: no torn tail; nothing to repair\n`,
    );
    expect(JSON.parse((await runCli(['salvage', prefix, '--dry-run', '--json', ...at])).stdout)).toMatchObject({
      action: 'would-salvage',
    });
    expect((await runCli(['where', prefix, ...at])).stdout).toContain(byPath);
  });

  it('the environment says where to look as --home does, in every command', async () => {
    const machine = await buildStateRoot();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      REASONIX_HOME: machine.stateRoot,
      HOME: await tempDir('rxstore-person-home-'),
    };
    delete env.REASONIX_STATE_HOME;
    const prefix = machine.ids.toolCalls.slice(0, 10);
    for (const args of [
      ['inspect', prefix],
      ['cat', prefix],
      ['where', prefix],
      ['export', prefix, '--to', '-'],
    ]) {
      const run = await runCliChild(args, { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    // The tool-calls conversation has a desktop copy and a workspace copy: read commands take the newest store's.
    expect(JSON.parse((await runCliChild(['inspect', prefix, '--json'], { env })).stdout).store).toBe(
      'desktop-sessions-v5',
    );
    // A command that writes takes a sessions-v4 copy only when there is one: here there are two, so it asks for a path.
    const repair = await runCliChild(['repair', prefix, '--dry-run'], { env });
    expect(repair.code).toBe(2);
    expect(repair.stderr).toMatch(
      /^rxstore: RX_AMBIGUOUS_SESSION: .* has 2 sessions-v4 copies; name the one to change by its path/,
    );
  });

  it('an ambiguous prefix lists the candidates, exit 2; a prefix of nothing says where it looked, exit 2', async () => {
    const machine = await buildStateRoot();
    const ids = Object.values(machine.ids);
    // The shortest start shared by two different sessions' ids.
    const shared = ids.flatMap((a) => ids.filter((b) => b !== a && b[0] === a[0]).map(() => a[0]!))[0];
    expect(shared).toBeDefined();
    const ambiguous = await runCli(['cat', shared!, '--state-home', machine.stateRoot]);
    expect(ambiguous.code).toBe(2);
    const [first, ...candidates] = ambiguous.stderr.trimEnd().split('\n');
    expect(first).toMatch(
      new RegExp(
        `^rxstore: RX_AMBIGUOUS_SESSION: "${shared}" is the start of \\d+ sessions' ids; give more of the id$`,
      ),
    );
    expect(candidates.length).toBeGreaterThanOrEqual(2);
    for (const line of candidates) expect(line).toMatch(new RegExp(`^  ${shared}\\S*  \\S+  ${machine.stateRoot}/`));

    const missing = await runCli(['inspect', 'ffff0000', '--state-home', machine.stateRoot]);
    expect(missing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_SESSION_NOT_FOUND: no session matches "ffff0000" (read ${machine.stateRoot})\n`,
    });
  });

  it('inspect takes several sessions: one report each, --json an array, the worst exit code', async () => {
    const machine = await buildStateRoot();
    const at = ['--state-home', machine.stateRoot];
    const json = await runCli([
      'inspect',
      machine.ids.plainChat,
      machine.ids.titledFork,
      machine.ids.damaged,
      '--json',
      ...at,
    ]);
    expect(json.code).toBe(1);
    expect(
      (JSON.parse(json.stdout) as { id: string; status: string }[]).map((report) => [report.id, report.status]),
    ).toEqual([
      [machine.ids.plainChat, 'ok'],
      [machine.ids.titledFork, 'ok'],
      [machine.ids.damaged, 'damaged'],
    ]);
    const human = await runCli(['inspect', machine.ids.plainChat, '/nowhere/session', machine.ids.titledFork, ...at]);
    expect(human.code).toBe(2);
    expect(human.stdout.match(/^session {6}/gm)).toHaveLength(2);
    expect(human.stderr).toBe('rxstore: RX_NOT_A_SESSION: /nowhere/session: no such file or directory\n');

    const messages = await runCli(['inspect', machine.ids.plainChat, '--messages', '--json', ...at]);
    const cat = (await runCli(['cat', machine.ids.plainChat, ...at])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(JSON.parse(messages.stdout)).toMatchObject({ id: machine.ids.plainChat, messages: cat });
  });
});

describe('help as people type it', () => {
  it('-h, --help and help <command> show the same help; -v and --version the version', async () => {
    const version = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    for (const args of [['-v'], ['--version']])
      expect(await runCli(args)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect((await runCli(['-h'])).stdout).toBe(top.stdout);
    for (const command of COMMANDS) expect(top.stdout).toMatch(new RegExp(`^  rxstore ${command}\\b`, 'm'));
    for (const command of COMMANDS) {
      const help = await runCli(['help', command]);
      expect(help.code).toBe(0);
      expect((await runCli([command, '-h'])).stdout).toBe(help.stdout);
      expect(help.stdout, command).toMatch(/^Examples:\n {2}# .*\n {2}rxstore /m);
      expect(help.stdout, command).toContain(EXIT_CODES_HELP);
    }
    // migrate and its migrations too.
    for (const args of [['migrate'], ['migrate', 'jsonl-to-v4']]) {
      const help = await runCli([...args, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout, args.join(' ')).toContain(EXIT_CODES_HELP);
    }
  });

  it('an unknown option names itself and points to the command’s help, exit 2', async () => {
    expect(await runCli(['--foo'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxstore: RX_USAGE: unknown option --foo; see rxstore --help\n',
    });
    expect(await runCli(['inspect', '--jsn', 'abc'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxstore: RX_USAGE: unknown option --jsn; did you mean --json? see rxstore inspect --help\n',
    });
    expect(await runCli([])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxstore: RX_USAGE: name a command; see rxstore --help\n',
    });
    expect((await runCli(['export', 'abc'])).stderr).toBe(
      'rxstore: RX_USAGE: missing required option --to; see rxstore export --help\n',
    );
    expect((await runCli(['lss'])).stderr).toBe(
      'rxstore: RX_USAGE: unknown command lss; did you mean ls? see rxstore --help\n',
    );
    // An option without its value is a usage error; one given twice counts once, the last.
    expect(await runCli(['ls', '--home'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxstore: RX_USAGE: --home needs a value; see rxstore ls --help\n',
    });
    const typo = join(await tempDir('rxstore-twice-'), 'nowhere');
    for (const option of ['--home', '--state-home']) {
      expect(await runCli(['ls', option, '/no/such/first', option, typo])).toEqual({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_SESSION_NOT_FOUND: no sessions found (${typo}: no such directory)\n`,
      });
    }
  });

  it('rxstore completion prints a completion script that asks rxstore for the commands', async () => {
    const script = await runCli(['completion']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('rxstore --get-yargs-completions');
    const words = await runCli(['--get-yargs-completions', 'rxstore', '']);
    expect(words.stdout.split('\n')).toEqual(expect.arrayContaining(COMMANDS));
  });

  it('README has the exit-code table every help ends with, and says .jsonl is taken wherever a session is', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    for (const line of EXIT_CODES_HELP.split('\n').slice(1)) {
      const [, code, meaning] = /^ {2}(\d) {2}(.*)$/.exec(line)!;
      expect(readme).toContain(`| ${code} | ${meaning} |`);
    }
    for (const command of ['inspect', 'cat', 'export'])
      expect((await runCli(['help', command])).stdout).toContain('.jsonl transcript');
  });
});

describe('errors a person can act on', () => {
  it('a missing path is named once; a system error is said in words, without temporary file names', async () => {
    expect(await runCli(['cat', '/nowhere/x.jsonl'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'rxstore: RX_NOT_A_SESSION: /nowhere/x.jsonl: no such file or directory\n',
    });
    const dir = await tempDir('rxstore-errors-');
    // A name longer than the system allows is the path the user typed: a usage error naming it (whole: a path is
    // cut only past 1,000 characters).
    const out = join(dir, `${'x'.repeat(300)}.jsonl`);
    const failed = await runCli(['export', fixture('plain-chat').dir, '--to', out]);
    expect(failed).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${out}: a name longer than the file system takes\n`,
    });
    // A path below a file is the wrong kind of path, said as such.
    await writeFile(join(dir, 'a-file'), '');
    const below = join(dir, 'a-file', 'export.jsonl');
    expect(await runCli(['export', fixture('plain-chat').dir, '--to', below])).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${below}: ${join(dir, 'a-file')} is a file, not a folder\n`,
    });
  });

  it('text from a session is printed with its control characters escaped', async () => {
    const dir = await tempDir('rxstore-escape-');
    const transcript = join(dir, `bad${ESC}[2J.jsonl`);
    await writeFile(transcript, `{"role":"user","content":"hi"}\n${ESC}[31mred\n`);
    for (const args of [
      ['inspect', transcript],
      ['cat', join(dir, `missing${ESC}.jsonl`)],
    ]) {
      const run = await runCli(args);
      expect(run.stdout + run.stderr).not.toContain(ESC);
      expect(run.stdout + run.stderr).toContain('\\x1b');
    }
  });

  it('no output cites the specification by section', async () => {
    const machine = await buildStateRoot();
    const outputs = await Promise.all([
      runCli(['ls', '--state-home', machine.stateRoot, '--verify']),
      ...Object.values(machine.ids).map((id) =>
        runCli(['where', id, '--state-home', machine.stateRoot, '--cwd', machine.workspaces['jsonl-migrated']]),
      ),
      runCli([
        'inspect',
        machine.ids.damaged,
        machine.ids.jsonlTwin,
        machine.ids.desktopImport,
        '--verbose',
        '--state-home',
        machine.stateRoot,
      ]),
    ]);
    for (const run of outputs) expect(run.stdout + run.stderr).not.toMatch(/§|spec /);
  });
});

describe('quiet by default', () => {
  it('a stale offset index (every copied session has one) is a note: shown with --verbose and in --json only', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const plain = await runCli(['inspect', dir]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/RX_OFFSET_INDEX_STALE|warning/);
    expect((await runCli(['inspect', dir, '--verbose'])).stdout).toMatch(
      /^note +RX_OFFSET_INDEX_STALE \S+events\.offset-index\.json: offset index is stale/m,
    );
    const json = JSON.parse((await runCli(['inspect', dir, '--json'])).stdout) as {
      problems: { code: string; severity: string }[];
    };
    expect(json.problems).toContainEqual(expect.objectContaining({ code: 'RX_OFFSET_INDEX_STALE', severity: 'note' }));
  });
});

describe('export to standard output', () => {
  it('--to - prints the transcript Reasonix would read, and writes no file', async () => {
    const dir = await tempDir('rxstore-export-stdout-');
    const source = fixture('plain-chat');
    const toFile = join(dir, 'session.jsonl');
    expect((await runCli(['export', source.dir, '--to', toFile])).code).toBe(0);
    const toStdout = await runCliChild(['export', source.dir, '--to', '-'], { cwd: dir });
    expect(toStdout).toMatchObject({ code: 0, stderr: '' });
    expect(toStdout.stdout).toBe(await readFile(toFile, 'utf8'));
    expect(await readFile(join(dir, '-')).catch(() => 'absent')).toBe('absent');
  });
});

describe('ls of a root that does not exist', () => {
  it('says the root does not exist and exits 2, never "no sessions" with 0', async () => {
    const typo = join(await tempDir('rxstore-typo-'), 'reasonxi');
    expect(await runCli(['ls', '--home', typo])).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_SESSION_NOT_FOUND: no sessions found (${typo}: no such directory)\n`,
    });
    const empty = await tempDir('rxstore-empty-home-');
    await mkdir(join(empty, 'projects'));
    expect(await runCli(['ls', '--home', empty, '--json'])).toEqual({
      code: 2,
      stdout: '[]\n',
      stderr: `rxstore: RX_SESSION_NOT_FOUND: no sessions found (read ${empty})\n`,
    });
  });
});

describe('salvage says what it found whole', () => {
  it('of a session with no manifest, which inspect calls damaged, it says the log had no damage, not that nothing did', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await rm(join(dir, 'manifest.json'));
    const inspected = await runCli(['inspect', dir]);
    expect(inspected.code).toBe(1);
    expect(inspected.stdout).toMatch(/RX_MANIFEST_MISSING/);
    const salvaged = await runCli(['salvage', dir]);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    expect(salvaged.stdout).toContain(': no damage in its log, the new session holds all of it');
    expect(salvaged.stdout).not.toContain('nothing was damaged');
  });
});
