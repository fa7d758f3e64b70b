// What a new user meets when they mistype at the command line: one wording for every unknown
// command, help topic, option and missing argument, exit 2; what they typed decides the exit code,
// and long input is cut in the message, with its length. The tables of words the command line alone
// answers run its `main` in this process (`runCliInProcess`: what the binary prints, and its exit code,
// for the cost of a call; each row gave what a child process of the binary gives when this was written);
// the rest run the binary as a child.
import { cp, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const usage = (message: string, help = 'rxstore --help') =>
  `rxstore: RX_USAGE: ${message}${message.endsWith('?') ? '' : ';'} see ${help}\n`;

describe('unknown things are usage errors, said the same way', () => {
  it.each([
    [['frobnicate'], usage('unknown command frobnicate')],
    [['help', 'frobnicate'], usage('unknown command frobnicate')],
    [['frobnicate', '--help'], usage('unknown command frobnicate')],
    [['inspct'], usage('unknown command inspct; did you mean inspect?')],
    [['help', 'inspct'], usage('unknown command inspct; did you mean inspect?')],
    [['migrate', 'frob'], usage('unknown command migrate frob', 'rxstore migrate --help')],
    [
      ['help', 'migrate', 'jsonl-to-v3'],
      usage('unknown command migrate jsonl-to-v3; did you mean migrate jsonl-to-v4?', 'rxstore migrate --help'),
    ],
    [['frobnicate', '--frob'], usage('unknown command frobnicate')],
    [['ls', '--verfy'], usage('unknown option --verfy; did you mean --verify?', 'rxstore ls --help')],
    [['inspect', '--jsn', 'abc'], usage('unknown option --jsn; did you mean --json?', 'rxstore inspect --help')],
    [['ls', '--frobnicate'], usage('unknown option --frobnicate', 'rxstore ls --help')],
    // Short options run together that hold a letter no option has: never read as `-h`, help.
    [
      ['search', '-dash'],
      usage(
        'unknown option -dash: a word that starts with - goes after --, as in rxstore search -- -dash',
        'rxstore search --help',
      ),
    ],
    [['-xh'], usage('unknown option -xh')],
    // A word of one dash holding `v` is not the version, nor is one holding only letters no option has.
    ...[
      ['search', '-aardvark'],
      ['search', '-verbose'],
      ['search', '-av'],
      ['search', '-ab'],
      ['search', '-x'],
      ['inspect', '-vfoo'],
      ['migrate', 'jsonl-to-v4', '-va'],
    ].map((args): [string[], string] => {
      const command = args.slice(0, -1).join(' ');
      const word = args.at(-1)!;
      return [
        args,
        usage(
          `unknown option ${word}: a word that starts with - goes after --, as in rxstore ${command} -- ${word}`,
          `rxstore ${command} --help`,
        ),
      ];
    }),
    [['-xv'], usage('unknown option -xv')],
    // Case is no distance: a command or option typed in capitals is the one it spells.
    [['INSPECT'], usage('unknown command INSPECT; did you mean inspect?')],
    [['help', 'INSPECT'], usage('unknown command INSPECT; did you mean inspect?')],
    [['Ls', '--json'], usage('unknown command Ls; did you mean ls?')],
    [['ls', '--JSON'], usage('unknown option --JSON; did you mean --json?', 'rxstore ls --help')],
    [['inspect', '--jsno', 'abc'], usage('unknown option --jsno; did you mean --json?', 'rxstore inspect --help')],
    // Words after a help topic are arguments nothing takes, said as any command says them.
    // Said the same with --help or without it, and pointing at the help of the command named.
    [['help', 'inspect', 'extra'], usage('unexpected argument extra', 'rxstore inspect --help')],
    [
      ['help', 'migrate', 'jsonl-to-v4', 'x', 'y'],
      usage('unexpected arguments x, y', 'rxstore migrate jsonl-to-v4 --help'),
    ],
    [['ls', 'extra'], usage('unexpected argument extra', 'rxstore ls --help')],
    [['ls', '--help', 'extra'], usage('unexpected argument extra', 'rxstore ls --help')],
    [['help', 'ls', 'extra'], usage('unexpected argument extra', 'rxstore ls --help')],
    [['ls', '-h', 'extra'], usage('unexpected argument extra', 'rxstore ls --help')],
    [['where', 'abc', 'extra', '--help'], usage('unexpected argument extra', 'rxstore where --help')],
    [['cat', '--help', 'abc', 'extra'], usage('unexpected argument extra', 'rxstore cat --help')],
    [['export', '--help', 'abc', 'x', 'y'], usage('unexpected arguments x, y', 'rxstore export --help')],
    [['repair', '--help', 'abc', 'extra'], usage('unexpected argument extra', 'rxstore repair --help')],
    [['salvage', '--help', 'abc', 'extra'], usage('unexpected argument extra', 'rxstore salvage --help')],
    [['view', '--help', 'abc', 'extra'], usage('unexpected argument extra', 'rxstore view --help')],
    [['relocate', '--help', 'a', 'b', 'extra'], usage('unexpected argument extra', 'rxstore relocate --help')],
    [
      ['migrate', 'jsonl-to-v4', '--help', 'a', 'extra'],
      usage('unexpected argument extra', 'rxstore migrate jsonl-to-v4 --help'),
    ],
    // A name that would not be seen is shown quoted.
    [[''], usage('unknown command ""')],
    [['help', ''], usage('unknown command ""')],
    [['help', ' '], usage('unknown command " "')],
    [['migrate', ''], usage('unknown command migrate ""', 'rxstore migrate --help')],
    // An empty transcript name names nothing, as inspect "" does: not the current folder.
    [
      ['migrate', 'jsonl-to-v4', ''],
      usage('name a transcript or a directory, or give --all', 'rxstore migrate jsonl-to-v4 --help'),
    ],
  ])('rxstore %j', async (args, stderr) => {
    expect(await runCliInProcess(args)).toMatchObject({ code: 2, stdout: '', stderr });
  });

  it('a command run without its session says what `inspect ""` says, in the command’s words', async () => {
    const named = 'name a session: its id or the start of one, a session directory, or a .jsonl transcript';
    for (const command of ['cat', 'export']) {
      const missing = await runCliChild([command]);
      expect(missing).toMatchObject({ code: 2, stdout: '', stderr: usage(named, `rxstore ${command} --help`) });
      expect((await runCliChild(command === 'export' ? [command, '', '--to', '-'] : [command, ''])).stderr).toMatch(
        new RegExp(`^rxstore: RX_USAGE: ${named.replace('.', '\\.')}[;\n]`),
      );
    }
    expect((await runCliChild(['inspect'])).stderr).toBe(usage(`${named} (or several)`, 'rxstore inspect --help'));
    expect((await runCliChild(['where'])).stderr).toBe(
      usage('name a session id, or the start of one', 'rxstore where --help'),
    );
    for (const command of ['repair', 'salvage', 'view']) {
      const missing = await runCliChild([command]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        new RegExp(`^rxstore: RX_USAGE: name a session[:(] .*; see rxstore ${command} --help\n$`),
      );
    }
    // The help of a command that exists is still help.
    expect(await runCliChild(['help', 'migrate', 'jsonl-to-v4'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('relocate run short of its folders says so in the words its own check of empty ones uses', async () => {
    for (const args of [['relocate'], ['relocate', '/gone/app']])
      expect(await runCliChild(args)).toMatchObject({
        code: 2,
        stderr: usage('name the old workspace folder and the new one', 'rxstore relocate --help'),
      });
  });

  it('--help with no more words than a command takes still prints its help', async () => {
    for (const args of [
      ['where', 'abc', '--help'],
      ['relocate', '--help', 'a', 'b'],
      ['inspect', '--help', 'a', 'b', 'c'],
      ['search', '--help', 'two', 'words'],
    ]) {
      const { code, stdout, stderr } = await runCliChild(args);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain(`rxstore ${args[0]}`);
    }
  });

  it('the help of completion is its help, not its script', async () => {
    for (const args of [
      ['help', 'completion'],
      ['completion', '--help'],
    ])
      expect(await runCliChild(args)).toEqual({
        code: 0,
        signal: null,
        stdout: 'rxstore completion\n\nPrint a bash/zsh completion script: rxstore completion >> ~/.bashrc\n',
        stderr: '',
      });
  });
});

describe('an option given a value it cannot take is a usage error, naming the option', () => {
  // Every boolean option of every command: a value other than true or false is never read as one.
  it.each([
    ['inspect', ['x', '--json=maybe']],
    ['inspect', ['x', '--messages=1']],
    ['inspect', ['x', '--verbose=yes']],
    ['inspect', ['x', '--strict=TRUE']],
    ['ls', ['--json=maybe']],
    ['ls', ['--verify=no']],
    ['ls', ['--cache=0']],
    ['ls', ['--utc=on']],
    ['ls', ['-h=x']],
    ['where', ['x', '--json=maybe']],
    ['cat', ['x', '--records=maybe']],
    ['export', ['x', '--to', '-', '--force=maybe']],
    ['repair', ['x', '--dry-run=maybe']],
    ['repair', ['x', '--json=maybe']],
    ['salvage', ['x', '--dry-run=maybe']],
    ['salvage', ['x', '--json=maybe']],
    ['view', ['x', '--all=maybe']],
    ['view', ['x', '--force=maybe']],
    ['migrate jsonl-to-v4', ['--all=maybe']],
    ['migrate jsonl-to-v4', ['x.jsonl', '--dry-run=maybe']],
    ['migrate jsonl-to-v4', ['x.jsonl', '--json=maybe']],
  ])('rxstore %s %j', async (command, args) => {
    const option = args.find((arg) => arg.includes('='))!;
    const [name, value] = option.split('=') as [string, string];
    const run = await runCliInProcess([...command.split(' '), ...args]);
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr: usage(
        `invalid value: ${name} is "${value}"; it must be true or false (or no value)`,
        `rxstore ${command} --help`,
      ),
    });
  });

  it('--no-json=x is refused, --json=true and --json=false are read as they say', async () => {
    expect((await runCliChild(['ls', '--no-json=x'])).stderr).toBe(
      usage('invalid value: --no-json is "x"; it takes no value', 'rxstore ls --help'),
    );
    const home = await tempDir('rxstore-no-home-');
    const yes = await runCliChild(['ls', '--json=true', '--home', home]);
    expect(yes).toMatchObject({ code: 2, stdout: '[]\n' });
    const no = await runCliChild(['ls', '--json=false', '--home', home]);
    expect(no).toMatchObject({ code: 2, stdout: '' });
  });

  // Every option that takes a value, given none: at the end, before another option, or empty after `=`.
  it.each<[string, string[], string]>([
    ['inspect', ['--state-home'], '--state-home'],
    ['inspect', ['x', '--home'], '--home'],
    ['inspect', ['--cwd', '--json', 'x'], '--cwd'],
    ['where', ['--home'], '--home'],
    ['ls', ['--home='], '--home'],
    ['ls', ['--workspace'], '--workspace'],
    ['ls', ['--workspace', '--json'], '--workspace'],
    ['ls', ['--store'], '--store'],
    ['cat', ['x', '--cursor'], '--cursor'],
    ['export', ['x', '--to'], '--to'],
    ['export', ['x', '--to', '-', '--format'], '--format'],
    ['export', ['x', '--to', '-', '--view='], '--view'],
    ['view', ['--format'], '--format'],
    ['view', ['x', '--to'], '--to'],
    ['salvage', ['x', '--to'], '--to'],
    ['migrate jsonl-to-v4', ['--to'], '--to'],
    ['migrate jsonl-to-v4', ['--concurrency'], '--concurrency'],
    ['migrate jsonl-to-v4', ['--cwd', '--all'], '--cwd'],
    // An empty word is no value either: taken as given it would be the current folder, or no file at all.
    ['ls', ['--home', ''], '--home'],
    ['ls', ['--state-home', ''], '--state-home'],
    ['ls', ['--cwd', ''], '--cwd'],
    ['ls', ['--workspace', ''], '--workspace'],
    ['where', ['x', '--cwd', ''], '--cwd'],
    ['view', ['x', '--to', ''], '--to'],
    ['migrate jsonl-to-v4', ['x', '--cwd', ''], '--cwd'],
  ])('rxstore %s %j: %s needs a value', async (command, args, option) => {
    const run = await runCliInProcess([...command.split(' '), ...args]);
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr: usage(`${option} needs a value`, `rxstore ${command} --help`),
    });
  });

  it('`-` is a value: view --to - writes to standard output', async () => {
    const run = await runCliChild(['view', 'x', '--to', '-', '--home', await tempDir('rxstore-no-home-')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rxstore: RX_SESSION_NOT_FOUND: no session matches "x"/);
  });
});

describe('what the user typed decides the exit code, and long input is cut in messages', () => {
  const longestLine = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

  it('an id of 5,000 characters is not found, as one of 255 is: exit 2, the id cut with its length', async () => {
    const home = await tempDir('rxstore-long-id-');
    for (const length of [255, 5000]) {
      const id = 'a'.repeat(length);
      for (const command of ['inspect', 'cat', 'where', 'repair', 'salvage', 'view']) {
        const run = await runCliChild([command, id, '--home', home]);
        expect(run.code, `${command} ${length}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(/^rxstore: RX_SESSION_NOT_FOUND: no session matches "a+/);
        expect(longestLine(run.stderr)).toBeLessThanOrEqual(400);
        if (length > 400) expect(run.stderr).toContain('… (5,000 characters)"');
      }
    }
  });

  it('a path of 6,000 characters is not a session, as /nonexistent/dir is: exit 2, cut with its length', async () => {
    const long = `/${'a/'.repeat(3000)}`;
    const missing = join(await tempDir('rxstore-missing-'), 'nonexistent', 'dir');
    for (const args of [
      ['inspect', long],
      ['cat', long],
      ['salvage', `${long}x.jsonl`],
      ['migrate', 'jsonl-to-v4', long],
      ['inspect', missing],
    ]) {
      const run = await runCliChild(args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^rxstore: RX_NOT_A_SESSION: \//);
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(longestLine(run.stderr)).toBeLessThanOrEqual(400);
    }
    expect((await runCliChild(['inspect', long])).stderr).toMatch(
      /^rxstore: RX_NOT_A_SESSION: \/a\/a\/\S*… \(6,000 characters\): a name longer than the file system takes\n$/,
    );
  });

  it('a --home too long for the file system is the path typed, refused as such and cut (exit 2)', async () => {
    const run = await runCliChild(['ls', '--home', `/${'b'.repeat(5000)}`]);
    expect(run.code).toBe(2);
    expect(longestLine(run.stderr)).toBeLessThanOrEqual(400);
    expect(run.stderr).toMatch(
      /^rxstore: RX_PATH_KIND: \/b+… \(5,001 characters\): a name longer than the file system takes\n$/,
    );
  });
});

describe('`--` ends the options: what follows is an argument, taken or refused as one before it', () => {
  it.each([
    [['-v', 'extra'], usage('unexpected argument extra')],
    [['--version', 'extra'], usage('unexpected argument extra')],
    [['-v', '--', '--json'], usage('unexpected argument --json')],
    [['ls', '--', '--home'], usage('unexpected argument --home', 'rxstore ls --help')],
    [['ls', '--', 'x', 'y'], usage('unexpected arguments x, y', 'rxstore ls --help')],
    [['ls', '-v', 'extra'], usage('unexpected argument extra', 'rxstore ls --help')],
    [['completion', '--', 'x'], usage('unexpected argument x', 'rxstore completion --help')],
    [['help', 'inspect', '--', 'extra'], usage('unexpected argument extra', 'rxstore inspect --help')],
    [['frob', '--', '-x'], usage('unknown command frob')],
    // An option before `--` is not given what follows it.
    [['ls', '--home', '--', 'x'], usage('--home needs a value', 'rxstore ls --help')],
  ])('rxstore %j', async (args, stderr) => {
    expect(await runCliInProcess(args)).toMatchObject({ code: 2, stdout: '', stderr });
  });

  it('the version is printed when nothing but a command is beside it', async () => {
    for (const args of [['-v'], ['ls', '--version']])
      expect(await runCliChild(args)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });

  it('a session named after `--` is read, one named like an option too', async () => {
    const dir = await tempDir('rxstore-operands-');
    const migrated = fixture('jsonl-migrated');
    await cp(
      join(migrated.root, 'projects', basename(dirname(dirname(migrated.dir))), 'sessions', 'legacy-demo.jsonl'),
      join(dir, '-odd.jsonl'),
    );
    const odd = await runCliChild(['inspect', '--', '-odd.jsonl'], { cwd: dir });
    expect(odd).toMatchObject({ code: 0, stderr: '' });
    expect(odd.stdout).toContain(`store        jsonl  ${join(dir, '-odd.jsonl')}\n`);
    const home = await tempDir('rxstore-no-home-');
    expect((await runCliChild(['where', '--home', home, '--', 'abc'])).stderr).toMatch(
      /^rxstore: RX_SESSION_NOT_FOUND: no session matches "abc"/,
    );
  });
});

// --cwd must be there (Reasonix runs from it); a home may not be yet (Reasonix makes it), but a file is no home.
describe('a folder option naming no folder is refused, naming the folder as typed', () => {
  it.each([
    ['ls', ['ls'], '--cwd'],
    ['ls', ['ls'], '--home'],
    ['ls', ['ls'], '--state-home'],
    ['where', ['where', 'abc'], '--cwd'],
    ['inspect', ['inspect', fixture('plain-chat').dir], '--cwd'],
    ['inspect', ['inspect', 'abc'], '--home'],
    ['search', ['search', 'word', '--no-index'], '--cwd'],
    ['view', ['view', 'abc'], '--state-home'],
    ['relocate', ['relocate', '/gone/app', '/tmp'], '--cwd'],
    ['migrate jsonl-to-v4', ['migrate', 'jsonl-to-v4', '--all', '--dry-run'], '--home'],
  ])('rxstore %s %s', async (_command, args, option) => {
    const dir = await tempDir('rxstore-folder-option-');
    const missing = join(dir, 'nonexistent');
    if (option === '--cwd')
      expect(await runCliChild([...args, option, missing])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${missing}: no such folder\n`,
      });
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expect(await runCliChild([...args, option, file])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${file}: is a file, a folder is needed\n`,
    });
  });
});

describe('search says a missing or wrong argument as every command does', () => {
  it.each([
    [['search'], 'give words to search for (or --file PATH)'],
    [['search', ''], 'give words to search for (or --file PATH)'],
    [['search', 'x', '--limit', '0'], '--limit takes a whole number above 0'],
    [['search', 'x', '--since', 'yesterday'], '--since takes a date (2026-05-01) or an ISO time, not "yesterday"'],
    // Times are kept to the millisecond: a bound between two would be on the wrong side of some message.
    [
      ['search', 'x', '--until', '2026-05-01T10:00:00.0009Z'],
      '--until takes a time to the millisecond at most, as times are kept, not "2026-05-01T10:00:00.0009Z"',
    ],
    [
      ['search', 'x', '--session', 'some/dir'],
      'some/dir is a path; search --session takes a session id or the start of one (for the session at a path: rxstore inspect some/dir)',
    ],
  ])('rxstore %j: a usage error pointing at its help (exit 2)', async (args, message) => {
    const run = await runCliChild([...args, '--state-home', await tempDir('rxstore-empty-')]);
    expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
      code: 2,
      stderr: usage(message, 'rxstore search --help'),
      stdout: '',
    });
  });

  it('a name too long for the file system is said in the same words by every command', async () => {
    const long = `/${'c'.repeat(5000)}`;
    const said = / \(5,001 characters\): a name longer than the file system takes\n$/;
    const inspect = await runCliChild(['inspect', long]);
    const ls = await runCliChild(['ls', '--home', long]);
    expect([inspect.code, ls.code]).toEqual([2, 2]);
    expect(inspect.stderr).toMatch(said);
    expect(ls.stderr).toMatch(said);
  });
});
