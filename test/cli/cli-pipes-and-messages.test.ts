// What a user sees from the commands that print a session line by line: `rxstore cat` and
// `inspect --messages` into a pipe that closes early (`| head -1`) end quietly, and
// `inspect --messages` prints the person's view — of the whole session, or up to its damage.
import { spawnSync } from 'node:child_process';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/session/writing/create-session.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { personView } from '../../src/session/replay/views.js';
import { rxstoreBin } from '../support/cli-child.js';
import { copySession, endFrames, framesOf, logOf, replaceFrame } from '../support/faults/faults.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

/** A session whose person's view is megabytes of JSONL: far more than a pipe holds. */
async function bigSession(): Promise<string> {
  const batches = Array.from({ length: 40 }, (_, turn) => ({
    operationId: `rxstore-test:big-${turn}`,
    events: Array.from({ length: 50 }, (_, index) =>
      complete({
        role: index % 2 ? 'assistant' : 'user',
        id: messageId(),
        ...(index % 2 ? {} : { origin: 'user' }),
        content: `turn ${turn} message ${index} ${'words '.repeat(200)}`,
      }),
    ),
  }));
  return (await createSession({ storeDir: join(await tempDir('rxstore-big-'), 'sessions-v4'), batches })).dir;
}

/** Runs `rxstore <args> | head -1` in a shell; rxstore's exit status and stderr are its own. */
function intoHead(args: string[], errFile: string) {
  const quoted = args.map((arg) => `'${arg}'`).join(' ');
  const shell = spawnSync(
    'bash',
    [
      '-c',
      `"${process.execPath}" "${rxstoreBin}" ${quoted} 2>"${errFile}" | head -1; echo "status \${PIPESTATUS[0]}" >&2`,
    ],
    { encoding: 'utf8' },
  );
  return { stdout: shell.stdout, status: /status (\d+)/.exec(shell.stderr)?.[1] };
}

describe('printing into a pipe that closes early', () => {
  it.each([
    { shown: 'cat <dir>', args: (dir: string) => ['cat', dir] },
    { shown: 'cat <dir> --records', args: (dir: string) => ['cat', dir, '--records'] },
    { shown: 'inspect <dir> --messages', args: (dir: string) => ['inspect', dir, '--messages'] },
  ])('rxstore $shown | head -1 prints one line and exits 0, with nothing on stderr', async ({ args }) => {
    const dir = await bigSession();
    const errFile = join(await tempDir('rxstore-epipe-'), 'stderr');
    const { stdout, status } = intoHead(args(dir), errFile);
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(() => JSON.parse(stdout)).not.toThrow();
    expect(status).toBe('0');
    expect(await readFile(errFile, 'utf8')).toBe('');
  });
});

describe('a damaged session printed into a pipe that closes early', () => {
  it.each([
    { shown: 'cat <dir>', args: (dir: string) => ['cat', dir] },
    { shown: 'cat <dir> --records', args: (dir: string) => ['cat', dir, '--records'] },
    { shown: 'view <dir> --format md --to -', args: (dir: string) => ['view', dir, '--format', 'md', '--to', '-'] },
  ])(
    "rxstore $shown | head -1 still exits 1 with its coded line: the verdict is not the reader's",
    async ({ args }) => {
      const dir = await bigSession();
      // A flipped byte near the end of the log: damage the reader meets after the first line was printed.
      const log = await readFile(join(dir, 'events.frames'));
      log[Math.floor(log.length * 0.9)]! ^= 0xff;
      await writeFile(join(dir, 'events.frames'), log);
      const errFile = join(await tempDir('rxstore-epipe-'), 'stderr');
      const { stdout, status } = intoHead(args(dir), errFile);
      expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(status).toBe('1');
      expect(await readFile(errFile, 'utf8')).toMatch(/^rxstore: RX_DAMAGED_STORE: /);
    },
  );
});

describe('inspect --messages', () => {
  it.each(FIXTURE_NAMES)("%s: one JSON line per message of the person's view, as cat prints them", async (name) => {
    const { dir } = fixture(name);
    const printed = await runCli(['inspect', dir, '--messages']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toBe('');
    const lines = printed.stdout.split('\n').filter(Boolean);
    const expected = personView((await readSession(dir)).projection);
    expect(expected.length).toBeGreaterThan(0);
    expect(lines.map((line) => JSON.parse(line))).toEqual(JSON.parse(JSON.stringify(expected)));
    expect((await runCli(['cat', dir])).stdout).toBe(printed.stdout);
  });

  it('of a damaged session: the messages before the damage, then one error line and exit 1', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const frames = await framesOf(dir);
    const ends = await endFrames(dir);
    const end = ends[Math.floor(ends.length / 2)]!;
    const begin = frames
      .filter((frame) => frame.record.recordType === 'batch/begin' && frame.offset < end.offset)
      .at(-1)!;
    // What precedes the damaged batch, as a session of its own.
    const prefix = await copySession(dir);
    await truncate(logOf(prefix), begin.offset);
    await replaceFrame(dir, end, Buffer.alloc(0));

    const printed = await runCli(['inspect', dir, '--messages']);
    expect(printed.code).toBe(1);
    const lines = printed.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toEqual(JSON.parse(JSON.stringify(personView((await readSession(prefix)).projection))));
    const errorLines = printed.stderr.split('\n').filter(Boolean);
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(/RX_DAMAGED_STORE: .*events\.frames at offset \d+: nested v4 batch at \d+/);
  });
});
