import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  exportSession,
  isSessionVerdict,
  openSession,
  RX_ERROR_FAMILIES,
  RxError,
  ZstdUnavailableError,
  type RxErrorCode,
} from '../../src/index.js';
import {
  NotASessionError,
  PathKindError,
  StoreLockCompromisedError,
  UsageError,
  ZstdSizeMismatch,
} from '../../src/errors/index.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

/** The rows of the code table in docs/error-codes.md: code, class, family, exit. */
async function documentedCodes(): Promise<Map<string, { family: string; exit: string }>> {
  const text = await readFile(new URL('../../docs/error-codes.md', import.meta.url), 'utf8');
  const rows = new Map<string, { family: string; exit: string }>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const code = /^`(RX_[A-Z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code) rows.set(code, { family: cells[3]!, exit: cells[4]! });
  }
  return rows;
}

describe('one error model', () => {
  it('docs/error-codes.md lists every code once, with the family it has and the exit status the CLI gives it', async () => {
    const documented = await documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(RX_ERROR_FAMILIES).sort());
    for (const [code, family] of Object.entries(RX_ERROR_FAMILIES)) {
      expect(documented.get(code)?.family, code).toBe(family);
      if (family === 'finding') continue;
      const thrown = new (class extends RxError {
        readonly code = code as RxErrorCode;
      })('probe');
      expect(documented.get(code)?.exit, code).toBe(String(exitCodeOf(thrown)));
    }
  });

  it('the main entry exports every error class there is, AmbiguousSessionError with its candidates among them', async () => {
    const library: Record<string, unknown> = await import('../../src/index.js');
    const errors: Record<string, unknown> = await import('../../src/errors/index.js');
    const isErrorClass = (value: unknown) =>
      typeof value === 'function' && (value === RxError || value.prototype instanceof RxError);
    const classes = Object.entries(errors)
      .filter(([, value]) => isErrorClass(value))
      .map(([name]) => name);
    expect(classes.length).toBeGreaterThan(30);
    for (const name of classes) expect(library[name], name).toBe(errors[name]);
  });

  it('the errors that were plain Errors are RxErrors with their codes; only damage and unsupported versions are a session verdict', () => {
    const errors = [
      new UsageError('bad option'),
      new ZstdUnavailableError('no zstd'),
      new StoreLockCompromisedError('taken'),
      new ZstdSizeMismatch(3, 4),
    ];
    expect(errors.every((error) => error instanceof RxError)).toBe(true);
    expect(errors.map((error) => [error.code, error.family, isSessionVerdict(error)])).toEqual([
      ['RX_USAGE', 'input', false],
      ['RX_ZSTD_UNAVAILABLE', 'environment', false],
      ['RX_LOCK_COMPROMISED', 'environment', false],
      ['RX_ZSTD_SIZE_MISMATCH', 'damaged', true],
    ]);
    expect(errors.map((error) => exitCodeOf(error))).toEqual([2, 1, 1, 1]);
    expect(JSON.parse(JSON.stringify(new ZstdSizeMismatch(3, 4)))).toEqual({
      code: 'RX_ZSTD_SIZE_MISMATCH',
      family: 'damaged',
      message: 'decoded 3 bytes, expected 4',
      data: { expected: 4, found: 3 },
    });
  });
});

describe('a file-system error is a coded RxError, never a raw ENOENT or ENOTDIR', () => {
  it('opening a path that is not there', async () => {
    const missing = join(await tempDir('rxstore-missing-'), 'nowhere', 'session');
    const error = await openSession(missing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotASessionError);
    expect(error).toMatchObject({ code: 'RX_NOT_A_SESSION', data: { file: missing } });
  });

  it('exporting to a path under a file: RX_PATH_KIND naming the path asked for and the file in its way, exit 2', async () => {
    const dir = await tempDir('rxstore-export-');
    await writeFile(join(dir, 'a-file'), '');
    const to = join(dir, 'a-file', 'out.jsonl');
    const read = await (await openSession(fixture('plain-chat').dir)).read();
    const error = await exportSession(read, { to, format: 'jsonl' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PathKindError);
    expect(error).toMatchObject({
      code: 'RX_PATH_KIND',
      message: `${to}: ${join(dir, 'a-file')} is a file, not a folder`,
      data: { file: to },
    });
    expect(await runCli(['export', fixture('plain-chat').dir, '--to', to])).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${to}: ${join(dir, 'a-file')} is a file, not a folder\n`,
    });
  });

  it('a cursor file that is a directory is the wrong kind of path, exit 2', async () => {
    const dir = await tempDir('rxstore-cursor-');
    const run = await runCli(['cat', fixture('plain-chat').dir, '--records', '--cursor', dir]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${dir}: is a folder, a file is needed\n`,
    });
  });

  it('a cursor file in a folder that is not there: one coded line naming the folder, before any record is printed', async () => {
    const folder = join(await tempDir('rxstore-cursor-'), 'no-such-folder');
    const run = await runCli([
      'cat',
      fixture('plain-chat').dir,
      '--records',
      '--cursor',
      join(folder, 'session.cursor'),
    ]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${join(folder, 'session.cursor')}: no such folder ${folder}; create it first\n`,
    });
  });

  it('a cursor file in a folder that is a file: said so, before any record is printed', async () => {
    const file = join(await tempDir('rxstore-cursor-'), 'a-file');
    await writeFile(file, 'x');
    const run = await runCli(['cat', fixture('plain-chat').dir, '--records', '--cursor', join(file, 'session.cursor')]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `rxstore: RX_PATH_KIND: ${join(file, 'session.cursor')}: ${file} is a file, not a folder\n`,
    });
  });

  it('a cursor without --records is a usage error, and no cursor file is written', async () => {
    const file = join(await tempDir('rxstore-cursor-'), 'session.cursor');
    const run = await runCli(['cat', fixture('plain-chat').dir, '--cursor', file]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'rxstore: RX_USAGE: --cursor needs --records (a cursor keeps the place in the records); see rxstore cat --help\n',
    });
    expect(await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
  });

  it('a cursor file of JSON that is not a cursor names the file, and the session is not read', async () => {
    const file = join(await tempDir('rxstore-cursor-'), 'session.cursor');
    await writeFile(file, '{"a":1}\n');
    const run = await runCli(['cat', fixture('plain-chat').dir, '--records', '--cursor', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `rxstore: RX_CURSOR_MISMATCH: ${file}: not a cursor rxstore wrote (version: Invalid input: expected 3); it is left as it is: name another file, or remove this one, to read the session from the start\n`,
    );
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n');
  });
});
