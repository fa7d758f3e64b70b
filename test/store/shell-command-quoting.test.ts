// The commands rxstore prints for a person to paste: a path with spaces, `%` or a quote reaches
// Reasonix whole, in `sh` and in `cmd.exe`, and no variable of the person's shell is expanded in it.
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../src/migrate/resume-command.js';
import { fromFolder, quote, reasonixResume, withEnv } from '../../src/store/roots/shell-command.js';
import { tempDir } from '../support/temp-dir.js';

const run = promisify(execFile);

/**
 * What `cmd.exe` run interactively hands a program for one pasted line, by its documented phases,
 * at its worst: every `%name%` is taken for a defined variable (a name with a caret never is), then
 * carets outside quotes escape the next character, then the program splits its command line at
 * spaces outside quotes. Paths here end in no backslash, so backslashes are plain characters.
 */
function cmdArgs(line: string): string[] {
  const expanded = line.replace(/%([^%^]+)%/g, '<expanded $1>');
  let unescaped = '';
  let quoted = false;
  for (let at = 0; at < expanded.length; at += 1) {
    const char = expanded[at]!;
    if (char === '^' && !quoted && at + 1 < expanded.length) unescaped += expanded[(at += 1)]!;
    else {
      if (char === '"') quoted = !quoted;
      unescaped += char;
    }
  }
  const args: string[] = [];
  let current: string | undefined;
  quoted = false;
  for (const char of unescaped) {
    if (char === '"') {
      quoted = !quoted;
      current ??= '';
    } else if (char === ' ' && !quoted) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else current = (current ?? '') + char;
  }
  if (current !== undefined) args.push(current);
  return args;
}

describe('quoting for cmd.exe', () => {
  it.each([
    { value: 'C:\\Users\\Me\\App', printed: 'C:\\Users\\Me\\App' },
    { value: 'C:\\Users\\Me\\My App', printed: '"C:\\Users\\Me\\My App"' },
    { value: 'C:\\Users\\Me\\R&D (old)', printed: '"C:\\Users\\Me\\R&D (old)"' },
    { value: 'C:\\Users\\Me\\100% done', printed: '^"C:\\Users\\Me\\100^% done^"' },
    { value: 'C:\\Users\\%USERNAME%\\notes.jsonl', printed: '^"C:\\Users\\^%USERNAME^%\\notes.jsonl^"' },
    { value: 'C:\\a %PATH% & b', printed: '^"C:\\a ^%PATH^% ^& b^"' },
  ])('$value is printed as $printed and reaches the program whole', ({ value, printed }) => {
    expect(quote(value, 'win32')).toBe(printed);
    expect(cmdArgs(`reasonix --resume ${quote(value, 'win32')}`)).toEqual(['reasonix', '--resume', value]);
  });

  it('a resume command from a folder with a pinned root keeps every path whole', () => {
    const command = resumeCommand('0123456789abcdef0123456789abcdef', 'C:\\Work\\100% %CD% app', 'win32', {
      name: 'REASONIX_HOME',
      value: 'C:\\Rx %HOME%',
    });
    expect(command).toBe(
      'cd /d ^"C:\\Work\\100^% ^%CD^% app^" && set ^"REASONIX_HOME=C:\\Rx ^%HOME^%^" && reasonix --resume 0123456789abcdef0123456789abcdef',
    );
    expect(command.split(' && ').map(cmdArgs)).toEqual([
      ['cd', '/d', 'C:\\Work\\100% %CD% app'],
      ['set', 'REASONIX_HOME=C:\\Rx %HOME%'],
      ['reasonix', '--resume', '0123456789abcdef0123456789abcdef'],
    ]);
  });

  it('a variable whose value has no % keeps the plain set "NAME=value" form', () => {
    expect(withEnv({ REASONIX_STATE_HOME: 'D:\\Backup\\Rx Store' }, 'reasonix --resume it', 'win32')).toBe(
      'set "REASONIX_STATE_HOME=D:\\Backup\\Rx Store" && reasonix --resume it',
    );
  });
});

describe('quoting for sh', () => {
  it.each([
    { value: '/home/me/app', printed: '/home/me/app' },
    { value: '/home/me/100%', printed: '/home/me/100%' },
    { value: '/home/me/My App', printed: "'/home/me/My App'" },
    { value: "/home/me/it's $HOME `x`", printed: "'/home/me/it'\\''s $HOME `x`'" },
  ])('$value is printed as $printed', ({ value, printed }) => {
    expect(quote(value, 'linux')).toBe(printed);
    expect(quote(value, 'darwin')).toBe(printed);
  });

  it('the printed resume command runs in sh: the folder, the pinned root and the query arrive as they were', async () => {
    const base = await tempDir('rxstore-quoting-');
    const workspace = join(base, "work 100% %HOME% it's $HOME");
    const root = join(base, 'state root & `x`');
    const query = join(workspace, "it's 50% done.jsonl");
    const bin = join(base, 'bin');
    await mkdir(workspace, { recursive: true });
    await mkdir(bin);
    // Stands in for the reasonix on PATH: this test is about what the shell hands it, not what it does.
    const seen = join(base, 'seen.json');
    await writeFile(
      join(bin, 'reasonix'),
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), home: process.env.REASONIX_HOME }));\n`,
    );
    await chmod(join(bin, 'reasonix'), 0o755);
    const command = fromFolder(
      workspace,
      withEnv({ REASONIX_HOME: root }, reasonixResume(query, 'linux'), 'linux'),
      'linux',
    );
    await run('sh', ['-c', command], { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
    expect(JSON.parse(await readFile(seen, 'utf8'))).toEqual({ argv: ['--resume', query], cwd: workspace, home: root });
  });
});
