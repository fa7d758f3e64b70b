import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { rxstoreBin, runCliChild } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';

const good = (text: string) =>
  `${[
    { role: 'system', content: 'You help.' },
    { role: 'user', content: text },
    { role: 'assistant', content: 'Done.' },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n')}\n`;

/** A folder of transcripts: one that migrates and four that cannot, each for its own reason. */
async function mixedFolder() {
  const base = await realpath(await tempDir('rxstore-cli-migrate-'));
  const [home, workspace, folder] = [join(base, 'home'), join(base, 'ws'), join(base, 'old chats')];
  await Promise.all([mkdir(home), mkdir(workspace), mkdir(folder)]);
  await writeFile(join(folder, 'a-good.jsonl'), good('Hello'));
  await writeFile(
    join(folder, 'b-bad-json.jsonl'),
    `${good('Hi').trimEnd()}\n{not json\n{"role":"user","content":"more"}\n{also not\n`,
  );
  await writeFile(
    join(folder, 'c-duplicate.jsonl'),
    '{"role":"user","id":"m1","content":"one"}\n{"role":"assistant","id":"m1","content":"two"}\n',
  );
  await writeFile(join(folder, 'd-fifo-sidecar.jsonl'), good('Sidecar'));
  execFileSync('mkfifo', [join(folder, 'd-fifo-sidecar.jsonl.meta'), join(folder, 'e-fifo.jsonl')]);
  return { home, workspace, folder, store: join(home, 'projects', workspaceSlug(workspace, 'linux'), 'sessions-v4') };
}

/** Safety net only: a run that has not finished by then has hung on a FIFO. */
const HANG = { killAfterMs: 30_000 };

describe('rxstore migrate jsonl-to-v4 as a person uses it', () => {
  it('in a pipe: a line per transcript (id, directory, resume command; or file, line and why), then the summary', async () => {
    const { home, workspace, folder, store } = await mixedFolder();
    const run = await runCliChild(['migrate', 'jsonl-to-v4', folder, '--home', home, '--cwd', workspace], HANG);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(
      lines
        .slice(0, 5)
        .map((line) => /^\[(\d)\/5\] /.exec(line)?.[1])
        .sort(),
    ).toEqual(['1', '2', '3', '4', '5']);
    const about = (name: string) =>
      lines.find((line) => line.includes(`${folder}/${name}`))!.replace(/^\[\d\/5\] /, '');

    const id = /: ([0-9a-f]{24}) -> /.exec(about('a-good.jsonl'))![1]!;
    expect(about('a-good.jsonl')).toBe(
      `migrated ${folder}/a-good.jsonl: ${id} -> ${store}/${id}; resume: cd ${workspace} && REASONIX_HOME=${home} reasonix --resume ${id}`,
    );
    expect(existsSync(join(store, id, 'manifest.json'))).toBe(true);
    expect(about('b-bad-json.jsonl')).toMatch(
      new RegExp(
        `^failed ${escape(folder)}/b-bad-json\\.jsonl:4: not JSON \\(.+\\); the line reads: .+ \\(RX_JSONL_LINE\\); rxstore salvage '${escape(folder)}/b-bad-json\\.jsonl' keeps the lines that are messages$`,
      ),
    );
    expect(about('c-duplicate.jsonl')).toBe(
      `failed ${folder}/c-duplicate.jsonl:2: duplicate message id "m1" (Reasonix refuses duplicate ids) (RX_MIGRATION_REFUSED)`,
    );
    expect(about('d-fifo-sidecar.jsonl')).toBe(
      `failed ${folder}/d-fifo-sidecar.jsonl: ${folder}/d-fifo-sidecar.jsonl.meta: a FIFO, not a regular file: Reasonix 1.38.11 resuming the transcript waits on it forever (RX_NOT_REGULAR_FILE)`,
    );
    expect(about('e-fifo.jsonl')).toBe(
      `failed ${folder}/e-fifo.jsonl: a FIFO, not a regular file: a transcript is a regular file (RX_NOT_REGULAR_FILE)`,
    );
    expect(lines[5]).toBe('5 transcripts: 1 migrated, 0 would be migrated, 0 already migrated, 4 failed');

    // --json carries the same facts.
    const json = await runCliChild(
      ['migrate', 'jsonl-to-v4', folder, '--home', home, '--cwd', workspace, '--json'],
      HANG,
    );
    const outcomes = JSON.parse(json.stdout) as {
      source: string;
      report?: { action: string; resume: string };
      error?: { code: string; file: string; line?: number };
    }[];
    expect(outcomes.map((outcome) => outcome.report?.action ?? outcome.error!.code)).toEqual([
      'exists',
      'RX_JSONL_LINE',
      'RX_MIGRATION_REFUSED',
      'RX_NOT_REGULAR_FILE',
      'RX_NOT_REGULAR_FILE',
    ]);
    expect(outcomes[0]!.report!.resume).toBe(`cd ${workspace} && REASONIX_HOME=${home} reasonix --resume ${id}`);
    expect(outcomes[1]!.error).toMatchObject({ file: `${folder}/b-bad-json.jsonl`, line: 4 });
  });

  it.skipIf(!hasScript())(
    'on a terminal: a progress bar, then a line per migration and per failure, then the summary',
    async () => {
      const { home, workspace, folder, store } = await mixedFolder();
      const command = [
        process.execPath,
        rxstoreBin,
        'migrate',
        'jsonl-to-v4',
        folder,
        '--home',
        home,
        '--cwd',
        workspace,
      ]
        .map((arg) => `'${arg}'`)
        .join(' ');
      // `script` gives the command a pseudo-terminal of a fixed size.
      const run = spawnSync('script', ['-qec', `stty cols 80 rows 24; ${command}`, '/dev/null'], {
        encoding: 'utf8',
        timeout: HANG.killAfterMs,
      });
      expect(run.status).toBe(1);
      const [bar, ...lines] = run.stdout.replaceAll('\r\n', '\n').trimEnd().split('\n');
      expect(bar).toBe(
        ['1/5', '2/5', '3/5', '4/5', '5/5']
          .map((count, index) => `\r[${'#'.repeat(Math.round(((index + 1) / 5) * 30)).padEnd(30, '.')}] ${count}`)
          .join(''),
      );
      expect(lines).toHaveLength(6);
      expect(lines[0]).toMatch(
        new RegExp(
          `^migrated ${escape(folder)}/a-good\\.jsonl: ([0-9a-f]{24}) -> ${escape(store)}/\\1; resume: cd ${escape(workspace)} && REASONIX_HOME=${escape(home)} reasonix --resume \\1$`,
        ),
      );
      expect(lines.slice(1, 5).map((line) => line.split(':')[0])).toEqual(
        ['b-bad-json.jsonl', 'c-duplicate.jsonl', 'd-fifo-sidecar.jsonl', 'e-fifo.jsonl'].map(
          (name) => `failed ${folder}/${name}`,
        ),
      );
      expect(lines[5]).toBe('5 transcripts: 1 migrated, 0 would be migrated, 0 already migrated, 4 failed');
    },
  );

  it.each(['abc', '0', '-1', '1.5', ''])(
    'refuses --concurrency %j: a positive integer, exit 2, nothing written',
    async (value) => {
      const { home, workspace, folder } = await mixedFolder();
      const run = await runCliChild(
        ['migrate', 'jsonl-to-v4', folder, '--home', home, '--cwd', workspace, `--concurrency=${value}`],
        HANG,
      );
      expect(run.code).toBe(2);
      // Given nothing, it is an option without its value, said as every such option is.
      const why =
        value === ''
          ? '--concurrency needs a value'
          : `--concurrency must be a positive integer, not ${JSON.stringify(value)}`;
      expect(run.stderr).toBe(`rxstore: RX_USAGE: ${why}; see rxstore migrate jsonl-to-v4 --help\n`);
      expect(run.stdout).toBe('');
      expect(existsSync(join(home, 'projects'))).toBe(false);
    },
  );

  it('shows a file name’s control characters escaped', async () => {
    const base = await realpath(await tempDir('rxstore-cli-migrate-'));
    await writeFile(join(base, 'odd\x1b[2Jname.jsonl'), 'not json\n');
    const run = await runCliChild(['migrate', 'jsonl-to-v4', base, '--home', join(base, 'home'), '--cwd', base], HANG);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('\x1b');
    expect(run.stdout.split('\n')[0]).toMatch(
      new RegExp(`^\\[1/1\\] failed ${escape(base)}/odd\\\\x1b\\[2Jname\\.jsonl:1: not JSON`),
    );
  });

  it('refuses a --cwd that does not exist, naming it as given, before any transcript is migrated', async () => {
    const { home, folder, store } = await mixedFolder();
    const missing = join(folder, 'no such folder');
    const run = await runCliChild(
      ['migrate', 'jsonl-to-v4', join(folder, 'a-good.jsonl'), '--home', home, '--cwd', missing],
      HANG,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`rxstore: RX_PATH_KIND: ${missing}: no such folder\n`);
    expect(existsSync(store)).toBe(false);
    const file = join(folder, 'a-good.jsonl');
    const onFile = await runCliChild(['migrate', 'jsonl-to-v4', file, '--home', home, '--cwd', file], HANG);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toBe(`rxstore: RX_PATH_KIND: ${file}: is a file, a folder is needed\n`);
  });

  it('refuses a FIFO named x.jsonl at once, without reading it', async () => {
    const { home, workspace, folder } = await mixedFolder();
    const run = await runCliChild(
      ['migrate', 'jsonl-to-v4', join(folder, 'e-fifo.jsonl'), '--home', home, '--cwd', workspace],
      HANG,
    );
    expect(run.signal).toBeNull();
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `rxstore: RX_NOT_A_SESSION: ${folder}/e-fifo.jsonl: a FIFO, not a regular file: a transcript is a regular .jsonl file\n`,
    );
  });
  it('puts each warning on a line of its own under the migration, no line over 400 characters', async () => {
    const { home, workspace, folder, store } = await mixedFolder();
    // No system message, and a tool call in OpenAI's nested form whose arguments are an array: three warnings.
    const lines = [
      { role: 'user', content: 'Count the files' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_n', type: 'function', function: { name: 'bash', arguments: '["ls"]' } }],
      },
      { role: 'tool', tool_call_id: 'call_n', content: '3' },
    ];
    const transcript = join(folder, 'nested.jsonl');
    await writeFile(transcript, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const run = await runCliChild(['migrate', 'jsonl-to-v4', transcript, '--home', home, '--cwd', workspace], HANG);
    expect(run.code, run.stderr).toBe(0);
    const [done, ...rest] = run.stdout.trimEnd().split('\n');
    const id = /: ([0-9a-f]{24}) -> /.exec(done!)![1]!;
    expect(done).toBe(
      `[1/1] migrated ${transcript}: ${id} -> ${store}/${id}; resume: cd ${workspace} && REASONIX_HOME=${home} reasonix --resume ${id}`,
    );
    const warnings = rest.slice(0, -1);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    for (const line of warnings) expect(line).toMatch(/^ {2}warning: \S/);
    expect(warnings.join('\n')).toContain('no system message');
    expect(rest.at(-1)).toBe('1 transcript: 1 migrated, 0 would be migrated, 0 already migrated, 0 failed');
    // The first and last lines are checked whole above (the first as long as the paths it names): each warning stays short.
    for (const line of warnings) expect(line.length).toBeLessThanOrEqual(400);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function hasScript(): boolean {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
}
