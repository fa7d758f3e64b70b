// One bad session never sinks the others: a transcript that holds a message longer than rxstore reads
// gets its own row, with its code, and every other session is listed. A transcript that is a FIFO or a
// link to /dev/zero is refused before a byte is read.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:buffer';
import { mkdir, open, readdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TRANSCRIPT_MESSAGE_BYTES } from '../../src/store/jsonl/jsonl-transcript.js';
import { readJsonlSession } from '../../src/store/jsonl/read-jsonl-session.js';
import { readTranscriptLines } from '../../src/store/jsonl/read-transcript-lines.js';
import { migrateJsonlToV4 } from '../../src/migrate/jsonl-to-v4.js';
import { salvageTranscript } from '../../src/migrate/salvage-transcript.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';
import { buildStateRoot } from '../support/sessions/state-root.js';

interface Row {
  id: string;
  status: string;
  problem: string | null;
}

/** A transcript whose second message runs past the cap: written as a sparse file, no byte of the run stored. */
async function transcriptWithLongMessage(path: string): Promise<void> {
  const file = await open(path, 'w');
  await file.write('{"role":"system","content":"You are terse."}\n{"role":"user","content":"');
  await file.truncate(MAX_TRANSCRIPT_MESSAGE_BYTES + 1024 * 1024);
  await file.close();
}

describe('ls over a machine with a bad transcript among good sessions', () => {
  it('lists every good session, gives each bad one its own row and code, and exits 1', async () => {
    const machine = await buildStateRoot();
    const before = JSON.parse((await runCli(['ls', '--state-home', machine.stateRoot, '--json'])).stdout) as Row[];
    const sessions = join(machine.stateRoot, 'sessions');
    await transcriptWithLongMessage(join(sessions, 'long-chat.jsonl'));
    const run = await runCli(['ls', '--state-home', machine.stateRoot, '--json']);
    const rows = JSON.parse(run.stdout) as Row[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const row of before) expect(byId.get(row.id), row.id).toMatchObject({ status: row.status });
    expect(byId.get('long-chat')).toMatchObject({
      status: 'unreadable',
      problem: expect.stringMatching(/^RX_TOO_LARGE: .*long-chat\.jsonl: line 2: a message of more than/),
    });
    expect(rows).toHaveLength(before.length + 1);
    expect(run.code).toBe(1);
  });
});

describe('cat, view and search over a transcript with a message longer than rxstore reads', () => {
  it('give the messages before it, then RX_TOO_LARGE at its line, exit 1', async () => {
    const dir = await tempDir('rxstore-long-');
    const path = join(dir, 'sessions', 'long-chat.jsonl');
    await mkdir(join(dir, 'sessions'));
    await writeFile(path, '{"role":"user","content":"where is the lighthouse key"}\n');
    const long = await open(path, 'a');
    await long.write('{"role":"assistant","content":"');
    await long.close();
    await truncate(path, MAX_TRANSCRIPT_MESSAGE_BYTES + 1024 * 1024);
    const tooLarge = /^rxstore: RX_TOO_LARGE: .*long-chat\.jsonl at offset \d+: line 2: a message of more than/m;

    const page = join(dir, 'page.md');
    const view = await runCli(['view', path, '--to', page]);
    expect(view.stderr).toMatch(tooLarge);
    expect(view.code).toBe(1);
    const written = await readFile(page, 'utf8');
    expect(written).toContain('where is the lighthouse key');
    expect(written).toContain('- **Status:** `unreadable`');
    expect(written).toMatch(/The session stops here\.\*\* RX\\_TOO\\_LARGE/);

    const cat = await runCli(['cat', path]);
    expect(
      cat.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).content),
    ).toEqual(['where is the lighthouse key']);
    expect(cat.stderr).toMatch(tooLarge);
    expect(cat.code).toBe(1);

    // The long message first: nothing precedes it, and the transcript is no empty one.
    const first = join(dir, 'first-long.jsonl');
    await writeFile(first, '{"role":"user","content":"');
    await truncate(first, MAX_TRANSCRIPT_MESSAGE_BYTES + 1024 * 1024);
    for (const command of [['cat'], ['view', '--format', 'md']]) {
      const run = await runCli([...command, first]);
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr).toMatch(/^rxstore: RX_TOO_LARGE: .*first-long\.jsonl at offset 0: line 1: /m);
    }

    for (const flags of [[], ['--no-index']]) {
      process.env.XDG_CACHE_HOME = join(dir, 'cache');
      const search = await runCli(['search', 'lighthouse', '--state-home', dir, '--json', ...flags]).finally(() => {
        delete process.env.XDG_CACHE_HOME;
      });
      const hits = search.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(hits).toMatchObject([
        { sessionId: 'long-chat', index: 0, damage: expect.stringMatching(/^RX_TOO_LARGE: line 2:/) },
      ]);
      expect(search.code).toBe(0);
    }
  });
});

describe('where over a transcript with a message longer than rxstore reads', () => {
  it('says its resume was not checked, and gives the command that would resume it, never "no command resumes it"', async () => {
    const machine = await buildStateRoot();
    const path = join(machine.stateRoot, 'sessions', 'long-chat.jsonl');
    await transcriptWithLongMessage(path);
    const where = await runCli(['where', 'long-chat', '--state-home', machine.stateRoot]);
    expect(where.stdout).not.toContain('no command resumes it');
    expect(where.stdout).toMatch(/not checked \(unreadable\) — rxstore cannot read it whole \(RX_TOO_LARGE: /);
    expect(where.stdout).toMatch(/^ {2}to try: .*reasonix --resume .*long-chat/m);
  });
});

describe('view --all over a machine with a transcript too long to read', () => {
  it('writes a page for every session, the bad one of the messages before its long one, says it with its code, and exits 1', async () => {
    const machine = await buildStateRoot();
    const sessions = join(machine.stateRoot, 'sessions');
    await transcriptWithLongMessage(join(sessions, 'long-chat.jsonl'));
    const site = await tempDir('rxstore-site-');
    const run = await runCli(['view', '--all', '--to', site, '--state-home', machine.stateRoot]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^rxstore: RX_TOO_LARGE: line 2: a message of more than \d+ bytes.*long-chat\.jsonl, offset \d+, line 2\)/m,
    );
    const pages = await readdir(join(site, 'sessions'));
    const listed = JSON.parse((await runCli(['ls', '--state-home', machine.stateRoot, '--json'])).stdout) as Row[];
    // Every session has its page, the bad one too: of its messages before the long one.
    expect(pages.length).toBe(listed.length);
  });
});

describe('migrate --all beside a transcript longer than any string', () => {
  it('migrates the others and fails that one with its code, never an engine message', async () => {
    const stateRoot = await tempDir('rxstore-all-');
    const dir = join(stateRoot, 'projects', '-home-me-alpha', 'sessions');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'fine.jsonl'),
      '{"role":"system","content":"You are a test."}\n{"role":"user","content":"hello"}\n',
    );
    const huge = join(dir, 'huge.jsonl');
    // Sparse: one byte past the longest string V8 makes, none of it written.
    await writeFile(huge, '');
    await truncate(huge, constants.MAX_STRING_LENGTH + 1);
    // The folder the migrated sessions belong to must exist, as migrate --cwd asks.
    await mkdir(join(stateRoot, 'ws'));
    const run = await runCli([
      'migrate',
      'jsonl-to-v4',
      '--all',
      '--state-home',
      stateRoot,
      '--home',
      stateRoot,
      '--cwd',
      join(stateRoot, 'ws'),
    ]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(
      lines.filter((line) => line.includes(`] failed ${huge}:1: `) && line.endsWith('(RX_TOO_LARGE)')),
    ).toHaveLength(1);
    expect(lines.at(-1)).toBe('2 transcripts: 1 migrated, 0 would be migrated, 0 already migrated, 1 failed');
  });
});

describe('migrate over a transcript with a message longer than rxstore reads', () => {
  it('refuses it as inspect does, RX_TOO_LARGE at its line, in a file far shorter than any string', async () => {
    const dir = await tempDir('rxstore-long-');
    const path = join(dir, 'long-chat.jsonl');
    await transcriptWithLongMessage(path);
    const tooLarge = { code: 'RX_TOO_LARGE', data: { file: path, line: 2 } };
    await expect(readJsonlSession(path)).rejects.toMatchObject(tooLarge);
    await mkdir(join(dir, 'store'));
    await expect(migrateJsonlToV4(path, { to: join(dir, 'store'), dryRun: true })).rejects.toMatchObject(tooLarge);
  });
});

describe('salvage over a transcript with a line longer than rxstore reads', () => {
  it('keeps the lines around it and lists that one as too large, never holding it', async () => {
    const dir = await tempDir('rxstore-long-');
    const path = join(dir, 'long-chat.jsonl');
    await transcriptWithLongMessage(path);
    const file = await open(path, 'a');
    await file.write('\n{"role":"user","content":"still here"}\n');
    await file.close();
    const report = await salvageTranscript(path, { dryRun: true });
    expect(report.linesKept).toBe(2);
    expect(report.dropped).toEqual([
      {
        line: 2,
        reason: `line 2: more than ${MAX_TRANSCRIPT_MESSAGE_BYTES} bytes, more than rxstore reads into memory (RX_TOO_LARGE)`,
      },
    ]);
  });
});

describe('a transcript that is no regular file', () => {
  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
    ['a symlink to /dev/zero', (path: string) => symlink('/dev/zero', path)],
  ])('%s is refused by the transcript readers, naming it, never waited on or read without end', async (_, make) => {
    const path = join(await tempDir('rxstore-odd-'), 'odd-chat.jsonl');
    await make(path);
    for (const read of [readJsonlSession, readTranscriptLines, salvageTranscript]) {
      await expect(read(path)).rejects.toMatchObject({ code: 'RX_NOT_REGULAR_FILE', data: { file: path } });
    }
  });
});
