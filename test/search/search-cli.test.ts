import { cp, link, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { rxstoreBin, runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';
import { hasScript, onTerminal } from '../support/terminal.js';

/** The built CLI over the tool-calls fixture, with a cache folder of its own. */
async function searchCli(args: string[], cache: string) {
  return runCliChild(['search', '--state-home', fixture('tool-calls').root, ...args], {
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });
}

describe('rxstore search, as a person runs it', () => {
  it('exits 0 with hits, 1 with none, 2 on an empty query or an invalid --regex', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const found = await searchCli(['"cannot access"'], cache);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('1083b7d00d4a95855b15212dd9c840c6');
    expect(found.stdout).toContain('»cannot access«');
    expect(found.stdout).toContain('rxstore view 1083b7d00d4a95855b15212dd9c840c6');
    // The commands it suggests work as printed, with the roots it searched.
    const [, open, resume] = /^ {2}open: (.*) {3}resume: (.*)$/m.exec(found.stdout)!;
    const folder = await tempDir('rxstore-search-open-');
    for (const command of [open!, resume!]) {
      const run = spawnSync('bash', ['-c', command.replace(/^rxstore /, `'${process.execPath}' '${rxstoreBin}' `)], {
        cwd: folder,
        encoding: 'utf8',
      });
      expect(run.status, `${command}: ${run.stderr}`).toBe(0);
    }
    expect((await lstat(join(folder, '1083b7d0.html'))).isFile()).toBe(true);
    expect((await searchCli(['no-such-words-anywhere'], cache)).code).toBe(1);
    const empty = await searchCli([''], cache);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/give words to search for/);
    // A --session no id starts with is said, as cat and where say it, not taken for a search that found nothing.
    const noSuchSession = await searchCli(['cannot', '--session', '1083B7D0'], cache);
    expect(noSuchSession.code).toBe(2);
    expect(noSuchSession.stderr).toMatch(
      /^rxstore: RX_SESSION_NOT_FOUND: no session matches "1083B7D0" \(read .*\)\n$/,
    );
    expect((await searchCli(['cannot', '--session', '1083b7d0'], cache)).code).toBe(0);
    // Roots that hold no session, or a workspace none is of, are said as ls says them.
    const nowhere = await runCliChild(['search', 'cannot', '--home', join(cache, 'no-such-home')], {
      env: { ...process.env, XDG_CACHE_HOME: cache },
    });
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(
      /^rxstore: RX_SESSION_NOT_FOUND: no sessions found \(.*no-such-home: no such directory\)\n$/,
    );
    const noWorkspace = await searchCli(['cannot', '--workspace', '/no/such/workspace'], cache);
    expect(noWorkspace.code).toBe(2);
    expect(noWorkspace.stderr).toMatch(
      /^rxstore: RX_SESSION_NOT_FOUND: no sessions of workspace \/no\/such\/workspace found/,
    );
    const invalid = await searchCli(['--regex', '(unclosed'], cache);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/invalid regular expression/);
    expect(invalid.stderr).not.toMatch(/\n\s+at /);
    // The pattern as typed: never the case flag search put before it.
    expect(invalid.stderr).toContain('missing closing ): `(unclosed`');
    // Its help says these exit codes, not the table of commands that exit 2 when nothing is found.
    const help = await searchCli(['--help'], cache);
    expect(help.stdout).toContain('Exit codes:\n  0  something was found\n  1  nothing was found');
    expect(help.stdout).not.toMatch(/2 +usage error, not a session, or nothing found/);
  });
  it.skipIf(!hasScript)('on a terminal, a search that finds nothing says so; a pipe gets nothing', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const command = [process.execPath, rxstoreBin, 'search', '--state-home', fixture('tool-calls').root, 'zzqqxx']
      .map((word) => `'${word}'`)
      .join(' ');
    const shown = spawnSync('script', ['-q', '-e', '-c', `stty cols 80 rows 50; ${command}`, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: cache },
    });
    expect(shown.status).toBe(1);
    expect(shown.stdout.replaceAll('\r', '')).toBe('nothing found for zzqqxx\n');
    const piped = await searchCli(['zzqqxx'], cache);
    expect(piped).toMatchObject({ code: 1, stdout: '', stderr: '' });
  });

  it.skipIf(!hasScript)('on a terminal, hits --limit left out are said; a pipe gets the hits alone', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const onTerminalRun = (limit: string) =>
      spawnSync(
        'script',
        [
          '-q',
          '-e',
          '-c',
          `stty cols 200 rows 50; '${process.execPath}' '${rxstoreBin}' search --state-home '${fixture('tool-calls').root}' txt --limit ${limit}`,
          '/dev/null',
        ],
        { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } },
      ).stdout.replaceAll('\r', '');
    const all = (await searchCli(['txt', '--json'], cache)).stdout.trim().split('\n').length;
    expect(all).toBeGreaterThan(2);
    expect(onTerminalRun('2')).toContain('rxstore: the 2 best hits are shown; --limit 4 shows more\n');
    expect(onTerminalRun(String(all))).not.toContain('best hits are shown');
    const piped = await searchCli(['txt', '--limit', '2'], cache);
    expect(piped.stderr).toBe('');
  });

  it('--json prints one hit per line, best first, with the fields cat and view name a message by; --no-index gives the same', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const { code, stdout } = await searchCli(['file', '--json'], cache);
    expect(code).toBe(0);
    const hits = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(hits.length).toBeGreaterThan(1);
    for (const hit of hits) {
      expect(Object.keys(hit)).toEqual(
        expect.arrayContaining([
          'sessionId',
          'workspace',
          'store',
          'messageId',
          'index',
          'role',
          'kind',
          'tool',
          'time',
          'score',
          'snippet',
          'matches',
        ]),
      );
      expect(['user', 'assistant', 'tool-input', 'tool-output', 'command', 'file']).toContain(hit.kind);
      for (const { start, end } of hit.matches as { start: number; end: number }[])
        expect((hit.snippet as string).slice(start, end).toLowerCase()).toBe('file');
    }
    // Every hit carries the message index cat and view number it by, with or without --around.
    for (const hit of hits) expect(typeof hit.index).toBe('number');
    const scores = hits.map((hit) => hit.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const direct = await searchCli(['file', '--json', '--no-index'], cache);
    expect(direct.stdout).toBe(stdout);
    // Each hit's message has its anchor in the session's page.
    const page = join(cache, 'page.html');
    expect((await runCliChild(['view', fixture('tool-calls').dir, '--to', page])).code).toBe(0);
    const html = await readFile(page, 'utf8');
    for (const hit of hits) expect(html).toContain(`id="m-${String(hit.messageId)}"`);
    const commands = await searchCli(['ls', '--kind', 'command', '--json'], cache);
    const lines = commands.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; exitCode: number });
    expect(lines.map((line) => [line.kind, line.exitCode])).toEqual(expect.arrayContaining([['command', 2]]));
    // --kind takes one kind (or a list with commas): the words after it, and after --, are the query.
    for (const args of [
      ['--kind', 'command', 'ls', '--json'],
      ['--kind', 'command', '--json', '--', 'ls'],
      ['--kind', 'user,command', 'ls', '--json'],
      ['--kind', 'user', '--kind', 'command', 'ls', '--json'],
    ])
      expect((await searchCli(args, cache)).stdout, args.join(' ')).toBe(commands.stdout);
    const unknown = await searchCli(['--kind', 'command,bogus', 'ls'], cache);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--kind is "bogus"/);
    const noKind = await searchCli(['--no-kind', 'ls'], cache);
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toMatch(/--kind is false; it must be one of/);
    // A number given twice counts once, the last, as any option of one value does.
    const limited = await searchCli(['ls', '--json', '--limit', '1', '--limit', '2'], cache);
    expect(limited.code).toBe(0);
    expect(limited.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('--file with no query lists the sessions that touched the file, one line each', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const { code, stdout } = await searchCli(['--file', 'notes.txt'], cache);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^\S+Z {2}1083b7d00d4a95855b15212dd9c840c6 {2}2 touches \((edit_file,read_file|read_file,edit_file)\) /,
      ),
    ]);
    expect((await searchCli(['--file', 'never-touched.txt'], cache)).code).toBe(1);
  });

  it('--since and --until: a date or a time without an offset is local time; a day that does not exist is refused', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    // The hit is at 2026-11-30T06:48:49Z: the evening of the 29th in Los Angeles, the morning of the 30th in Berlin.
    const run = (tz: string, args: string[]) =>
      runCliChild(['search', '--state-home', fixture('tool-calls').root, '"cannot access"', ...args], {
        env: { ...process.env, XDG_CACHE_HOME: cache, TZ: tz },
      });
    const los = 'America/Los_Angeles';
    expect((await run(los, ['--since', '2026-11-30'])).code).toBe(1);
    expect((await run(los, ['--since', '2026-11-30T00:00'])).code).toBe(1);
    expect((await run(los, ['--until', '2026-11-30'])).code).toBe(0);
    expect((await run(los, ['--since', '2026-11-29', '--until', '2026-11-29T23:00'])).code).toBe(0);
    expect((await run(los, ['--since', '2026-11-30T00:00Z'])).code).toBe(0);
    expect((await run('Europe/Berlin', ['--since', '2026-11-30'])).code).toBe(0);
    for (const impossible of ['2026-02-30', '2026-02-31T00:00Z', '2026-02-29', '2026-13-45', '2026-11-30T24:00']) {
      const refused = await run(los, ['--since', impossible]);
      expect(refused.code, impossible).toBe(2);
      expect(refused.stderr).toContain(
        `RX_USAGE: --since takes a date (2026-05-01) or an ISO time, not "${impossible}"`,
      );
    }
    // A local time the clocks skip does not exist either: New York went from 02:00 to 03:00 on 2026-03-08.
    const skipped = await run('America/New_York', ['--since', '2026-03-08T02:30']);
    expect(skipped.code).toBe(2);
    expect(skipped.stderr).toContain(
      'RX_USAGE: --since takes a time that exists: "2026-03-08T02:30" is a local time the clocks skip',
    );
    expect((await run('America/New_York', ['--since', '2026-03-08T03:30'])).code).toBe(0);
    // Its time is kept to the millisecond, .583: a bound there takes it in or leaves it out as it should, written
    // with more digits too while they are zeros.
    expect((await run(los, ['--since', '2026-11-30T06:48:49.583Z'])).code).toBe(0);
    expect((await run(los, ['--until', '2026-11-30T06:48:49.583000Z'])).code).toBe(1);
  });

  it('two searches at once in two processes, on a first build, both answer the same', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    const [a, b] = await Promise.all([
      searchCli(['missing', '--json'], cache),
      searchCli(['missing', '--json'], cache),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe('');
    expect(join(cache, 'rxstore')).toBeTruthy();
  });
  it('calls a session what ls calls it: its own title, else its first typed message', async () => {
    const cache = await tempDir('rxstore-search-cli-');
    for (const name of ['titled', 'tool-calls', 'compacted', 'jsonl-migrated'] as const) {
      const root = fixture(name).root;
      const listed = await runCliChild(['ls', '--json', '--state-home', root]);
      const titles = new Map(
        (JSON.parse(listed.stdout) as { id: string; title: string | null }[]).map((row) => [row.id, row.title]),
      );
      const found = await runCliChild(['search', '--state-home', root, '--json', 'e'], {
        env: { ...process.env, XDG_CACHE_HOME: cache },
      });
      expect(found.code).toBe(0);
      const hits = found.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { sessionId: string; title: string | null });
      for (const hit of hits) {
        expect(hit.title).not.toBeNull();
        expect(hit.title).toBe(titles.get(hit.sessionId));
      }
      const shown = await runCliChild(['search', '--state-home', root, 'e'], {
        env: { ...process.env, XDG_CACHE_HOME: cache },
      });
      expect(shown.stdout).not.toContain('(untitled)');
    }
  });
  it('says a session it searched only up to damage, hit or not, with the index and without', async () => {
    const root = await tempDir('rxstore-search-damaged-');
    await cp(fixture('tool-calls').root, root, { recursive: true });
    const session = fixture('tool-calls').dir.replace(fixture('tool-calls').root, root);
    const log = join(session, 'events.frames');
    const bytes = await readFile(log);
    bytes[200] = bytes[200]! ^ 0xff;
    await writeFile(log, bytes);
    for (const extra of [[], ['--no-index']]) {
      const run = await runCliChild(['search', '--state-home', root, '"cannot access"', ...extra], {
        env: { ...process.env, XDG_CACHE_HOME: await tempDir('rxstore-search-cli-') },
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      // One line, the session's path and the damage with its code.
      expect(run.stderr.startsWith(`rxstore: ${session}: searched up to damage: RX_DAMAGED_STORE: `)).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
  it('calls an untitled transcript by its meta preview, as ls does, not by its first message', async () => {
    const home = await tempDir('rxstore-search-preview-');
    const dir = join(home, 'projects', '-tmp-previewed', 'sessions');
    await mkdir(dir, { recursive: true });
    const lines = [
      { role: 'user', content: 'The first message, about lanterns.' },
      { role: 'assistant', content: 'Lanterns it is.' },
    ];
    await writeFile(join(dir, 'previewed.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const meta = { id: 'previewed', created_at: '2026-11-01T08:00:00Z', updated_at: '2026-11-01T08:00:00Z' };
    await writeFile(
      join(dir, 'previewed.jsonl.meta'),
      JSON.stringify({ ...meta, scope: 'project', workspace_root: '/tmp/previewed', preview: 'What the meta shows' }),
    );
    const listed = await runCliChild(['ls', '--json', '--home', home]);
    const [row] = JSON.parse(listed.stdout) as { title: string | null }[];
    expect(row!.title).toBe('What the meta shows');
    const found = await runCliChild(['search', '--home', home, '--json', 'lanterns'], {
      env: { ...process.env, XDG_CACHE_HOME: await tempDir('rxstore-search-cli-') },
    });
    expect(found.code, found.stderr).toBe(0);
    for (const line of found.stdout.trim().split('\n'))
      expect((JSON.parse(line) as { title: string | null }).title).toBe(row!.title);
  });
  it.skipIf(!hasScript).each([40, 60])(
    'on a terminal %i columns wide, each snippet line fits, cut with … at a whole character, its match highlighted',
    async (columns) => {
      const cache = await tempDir('rxstore-search-cli-');
      for (const [name, word] of [
        ['compacted', 'ipsum'],
        ['cjk-emoji', '项目'],
      ] as const) {
        const lines = onTerminal(columns, ['search', '--state-home', fixture(name).root, word], {
          XDG_CACHE_HOME: cache,
        });
        const snippets = lines.filter((line) => /^ {4}\S/.test(line));
        expect(snippets.length).toBeGreaterThan(0);
        for (const line of snippets) {
          expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
          expect(line).toContain(`\u001b[1;31m${word}\u001b[0m`);
          expect(line).not.toContain('\ufffd');
        }
        expect(snippets.some((line) => line.replace(/\u001b\[[0-9;]*m/g, '').endsWith('…'))).toBe(true);
      }
    },
  );
});

describe("rxstore search with a file in its index's place that it did not make", () => {
  /** A database of the user's own, which SQLite would open and write its tables into were it followed. */
  async function victimDatabase(path: string): Promise<Buffer> {
    const { Database } = (await import('node-sqlite3-wasm')).default;
    const db = new Database(path);
    db.exec("create table precious(x); insert into precious values ('kept')");
    db.close();
    return readFile(path);
  }

  const notIndex = 'not a search index rxstore made';
  it.each([
    ['a symbolic link as the index', 'search-index.sqlite', 'symlink', `a symbolic link, ${notIndex}`],
    ['a hard link as the index', 'search-index.sqlite', 'hard link', `a file with 2 names (a hard link), ${notIndex}`],
    ['a symbolic link as its journal', 'search-index.sqlite-journal', 'symlink', `a symbolic link, ${notIndex}`],
    ['a symbolic link as a write-ahead log', 'search-index.sqlite-wal', 'symlink', `a symbolic link, ${notIndex}`],
    [
      'a hard link as its shared-memory index',
      'search-index.sqlite-shm',
      'hard link',
      `a file with 2 names (a hard link), ${notIndex}`,
    ],
    ['a FIFO as the index', 'search-index.sqlite', 'fifo', `a FIFO, ${notIndex}`],
    ['a symbolic link as its lock file', 'search-index.lock', 'symlink', `a symbolic link, ${notIndex}`],
    [
      "a symbolic link as SQLite's lock beside it",
      'search-index.sqlite.lock',
      'symlink',
      'a symbolic link, not the lock SQLite makes beside the index',
    ],
  ] as const)(
    "%s: nothing is written through it, it is left, and the hits are --no-index's, with one warning",
    async (_, name, kind, words) => {
      const root = await tempDir('rxstore-search-planted-');
      const cache = join(root, 'cache');
      await mkdir(join(cache, 'rxstore'), { recursive: true });
      const victim = join(root, 'victim.sqlite');
      const before = await victimDatabase(victim);
      const planted = join(cache, 'rxstore', name);
      if (kind === 'symlink') await symlink(victim, planted);
      else if (kind === 'hard link') await link(victim, planted);
      else expect(spawnSync('mkfifo', [planted]).status).toBe(0);
      for (const query of ['notes', 'no-such-words-anywhere']) {
        const direct = await searchCli(['--json', '--no-index', query], cache);
        const run = await searchCli(['--json', query], cache);
        expect(run.code, run.stderr).toBe(direct.code);
        expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
        expect(run.stderr).toBe(
          `${direct.stderr}rxstore: warning: RX_NOT_REGULAR_FILE: the search index in ${join(cache, 'rxstore')} cannot be used (${planted} is ${words}; it is left as it is); searched the stores directly\n`,
        );
      }
      expect(await readFile(victim)).toEqual(before);
      const left = await lstat(planted);
      expect(kind === 'symlink' ? left.isSymbolicLink() : kind === 'fifo' ? left.isFIFO() : left.nlink === 2).toBe(
        true,
      );
    },
  );

  /** A database of another program's, made by SQLite with these statements. */
  async function databaseOf(path: string, sql: string): Promise<Buffer> {
    const { Database } = (await import('node-sqlite3-wasm')).default;
    const db = new Database(path);
    db.exec(sql);
    db.close();
    return readFile(path);
  }

  it.each([
    ['a text file', 'no SQLite database', async () => Buffer.from('my notes\n')],
    ["another program's SQLite database", "another program's SQLite database", victimDatabase],
    [
      'a database with tables named as the index keeps them, and one more',
      "another program's SQLite database",
      (path: string) =>
        databaseOf(
          path,
          "create table sessions(x); create table docs(y); create table precious(x); insert into precious values ('kept')",
        ),
    ],
    [
      'a database of views alone',
      "another program's SQLite database",
      (path: string) => databaseOf(path, 'create view precious as select 1'),
    ],
    [
      "another program's database cut after its header",
      'application id 1234',
      async (path: string) =>
        (
          await databaseOf(path, "pragma application_id = 1234; create table t(x); insert into t values ('kept')")
        ).subarray(0, 100),
    ],
  ] as const)(
    "%s as the index: left byte for byte, and the hits are --no-index's, with one warning",
    async (_, words, make) => {
      const root = await tempDir('rxstore-search-other-file-');
      const cache = join(root, 'cache');
      await mkdir(join(cache, 'rxstore'), { recursive: true });
      const planted = join(cache, 'rxstore', 'search-index.sqlite');
      const before = await make(planted);
      await writeFile(planted, before);
      const direct = await searchCli(['--json', '--no-index', 'notes'], cache);
      const run = await searchCli(['--json', 'notes'], cache);
      expect(run.code, run.stderr).toBe(direct.code);
      expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
      expect(run.stderr).toContain(
        `rxstore: warning: RX_OVERWRITE_REFUSED: the search index in ${join(cache, 'rxstore')}`,
      );
      expect(run.stderr).toContain(words);
      expect(await readFile(planted)).toEqual(before);
    },
  );

  it.each([
    ['a file', 'a file'],
    ['a symbolic link to nothing', 'a symbolic link to nothing'],
    ['a loop of symbolic links', 'a loop of symbolic links'],
  ] as const)(
    "%s as the index's folder: left, and the hits are --no-index's, with one warning",
    async (kind, words) => {
      const cache = await tempDir('rxstore-search-planted-');
      const folder = join(cache, 'rxstore');
      if (kind === 'a file') await writeFile(folder, 'mine\n');
      else await symlink(kind === 'a loop of symbolic links' ? folder : join(cache, 'nowhere'), folder);
      const direct = await searchCli(['--json', '--no-index', 'notes'], cache);
      const run = await searchCli(['--json', 'notes'], cache);
      expect(run.code, run.stderr).toBe(direct.code);
      expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
      expect(run.stderr).toBe(
        `${direct.stderr}rxstore: warning: RX_NOT_REGULAR_FILE: the search index in ${folder} cannot be used (${folder} is ${words}, not a folder the index can be kept in; it is left as it is); searched the stores directly\n`,
      );
      const left = await lstat(folder);
      expect(kind === 'a file' ? (await readFile(folder, 'utf8')) === 'mine\n' : left.isSymbolicLink()).toBe(true);
    },
  );
});

describe('a cache home that is a loop of symbolic links', () => {
  it("is named once, left as it is, and the hits are --no-index's", async () => {
    const home = await tempDir('rxstore-search-loop-');
    await symlink(join(home, 'b'), join(home, 'a'));
    await symlink(join(home, 'a'), join(home, 'b'));
    const cache = join(home, 'a');
    const direct = await searchCli(['--json', '--no-index', 'notes'], cache);
    const run = await searchCli(['--json', 'notes'], cache);
    expect(run.code, run.stderr).toBe(direct.code);
    expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
    expect(run.stderr).toBe(
      `${direct.stderr}rxstore: warning: RX_NOT_REGULAR_FILE: the search index in ${join(cache, 'rxstore')} cannot be used (${cache} is a loop of symbolic links, not a folder the index can be kept in; it is left as it is); searched the stores directly\n`,
    );
  });
});

const asRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

describe.skipIf(asRoot && !hasSetpriv)('rxstore search with a cache folder it may not write', () => {
  /** As `nobody` when the tests run as root (who may write any folder); fixtures and the folders are world-readable. */
  const runAsOther = (argv: string[], cache: string) =>
    spawnSync(
      asRoot ? 'setpriv' : process.execPath,
      [...(asRoot ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : []), rxstoreBin, ...argv],
      { encoding: 'utf8', cwd: '/', env: { ...process.env, XDG_CACHE_HOME: cache } },
    );

  it('gives the hits and exit code --no-index gives, with one warning, the index built or not', async () => {
    const root = await tempDir('rxstore-search-ro-');
    await cp(fixture('tool-calls').root, join(root, 'state'), { recursive: true });
    const cache = join(root, 'cache');
    await mkdir(cache, { mode: 0o755 });
    const argv = ['search', '--state-home', join(root, 'state'), '--json'];
    // The index built by its owner (here as root: a folder `nobody` may not write), then searched by another user.
    expect(runCliChildSync([...argv, 'notes'], cache).status).toBe(0);
    spawnSync('chmod', ['-R', 'a+rX', root]);
    for (const query of ['notes', 'no-such-words-anywhere']) {
      const direct = runAsOther([...argv, '--no-index', query], cache);
      const run = runAsOther([...argv, query], cache);
      expect(run.status, run.stderr).toBe(direct.status);
      expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
      expect(run.stderr).toBe(
        `${direct.stderr}rxstore: warning: RX_FILE_SYSTEM: the search index in ${join(cache, 'rxstore')} cannot be written (permission denied); searched the stores directly\n`,
      );
    }
  });
});

describe('an index file or folder the file system will not let be written (chattr +i, +a)', () => {
  // Immutable and append-only files need root and a file system that keeps the flags.
  const probe = spawnSync('bash', ['-c', 'f=$(mktemp) && chattr +i "$f" && chattr -i "$f" && rm "$f"']);
  it.skipIf(probe.status !== 0)(
    'gives the hits --no-index gives, with one warning, and leaves the file as it was',
    async () => {
      const root = await tempDir('rxstore-search-immutable-');
      const cache = join(root, 'cache');
      const argv = ['search', '--state-home', fixture('tool-calls').root, '--json'];
      expect(runCliChildSync([...argv, 'notes'], cache).status).toBe(0);
      const folder = join(cache, 'rxstore');
      const index = join(folder, 'search-index.sqlite');
      const before = await readFile(index);
      const direct = runCliChildSync([...argv, '--no-index', 'notes'], cache);
      for (const [flag, path] of [
        ['+i', index],
        ['+a', index],
        ['+i', folder],
      ] as const) {
        expect(spawnSync('chattr', [flag, path]).status).toBe(0);
        try {
          const run = runCliChildSync([...argv, 'notes'], cache);
          expect(run.status, `${flag} ${path}: ${run.stderr}`).toBe(0);
          expect(run.stdout.replace(/"score":[^,]+,/g, '')).toBe(direct.stdout.replace(/"score":[^,]+,/g, ''));
          expect(run.stderr).toBe(
            `rxstore: warning: RX_FILE_SYSTEM: the search index in ${folder} cannot be written (permission denied); searched the stores directly\n`,
          );
        } finally {
          spawnSync('chattr', [`-${flag.slice(1)}`, path]);
        }
        expect(await readFile(index)).toEqual(before);
      }
    },
  );
});

/** The built CLI run as this user. */
function runCliChildSync(argv: string[], cache: string) {
  return spawnSync(process.execPath, [rxstoreBin, ...argv], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });
}
