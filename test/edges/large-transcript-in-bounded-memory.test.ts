// A JSONL transcript is read a run of messages at a time wherever its messages are not kept: a listing,
// inspect, cat, export and view of one larger than the heap answer, as they do of a sessions-v4 log, instead of a V8 crash.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliChild, rxstoreBin } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';

const MiB = 1024 * 1024;

/** A transcript of turns, each a typed question, a shell call and its output of 4 KiB, to `bytes`; its message count. */
async function writeTranscript(path: string, bytes: number): Promise<number> {
  const file = await open(path, 'w');
  let written = 0;
  let messages = 0;
  try {
    for (let turn = 0; written < bytes; turn += 1) {
      const call = `call_${turn}`;
      const lines = [
        { role: 'user', content: `question ${turn}: what does file ${turn} hold?` },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [{ id: call, name: 'bash', arguments: `{"command":"cat f${turn}"}` }],
        },
        { role: 'tool', tool_call_id: call, name: 'bash', content: `line ${turn} `.repeat(512).slice(0, 4096) },
        { role: 'assistant', content: `File ${turn} holds lines.` },
      ];
      const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
      await file.write(text);
      written += Buffer.byteLength(text);
      messages += lines.length;
    }
  } finally {
    await file.close();
  }
  return messages;
}

/** A 64 MiB transcript in a state folder, written once before the tests, and a heap far smaller than its messages held whole. */
function largeTranscriptWrittenOnce() {
  let written: { stateRoot: string; transcript: string; messages: number; env: NodeJS.ProcessEnv } | undefined;
  beforeAll(async () => {
    const stateRoot = await tempDir('rxstore-large-transcript-');
    const sessions = join(stateRoot, 'projects', '-tmp-large', 'sessions');
    await mkdir(sessions, { recursive: true });
    const transcript = join(sessions, 'large.jsonl');
    const messages = await writeTranscript(transcript, 64 * MiB);
    // Its messages held whole (the text, then the replayed messages) are far more than this heap; a run of them far less.
    const env = {
      ...process.env,
      XDG_CACHE_HOME: await tempDir('rxstore-cache-'),
      NODE_OPTIONS: '--max-old-space-size=96',
    };
    written = { stateRoot, transcript, messages, env };
  });
  return () => written!;
}

describe('a JSONL transcript larger than the heap', () => {
  // One transcript, one command a test: each of them alone takes seconds on a busy machine.
  const large = largeTranscriptWrittenOnce();

  it('is listed', async () => {
    const { stateRoot, messages, env } = large();
    const listed = await runCliChild(['ls', '--no-cache', '--json', '--state-home', stateRoot], { env });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: 'large', status: 'ok', messages }]);
  });

  it('is inspected', async () => {
    const { transcript, env } = large();
    const inspected = await runCliChild(['inspect', transcript, '--json'], { env });
    expect(inspected.stderr).toBe('');
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ status: 'ok' });
  });

  it('is printed, every message, the last one as it was written', async () => {
    const { transcript, messages, env } = large();
    const printed = await runCliChild(['cat', transcript], { env });
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const lines = printed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(messages);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      role: 'assistant',
      content: `File ${messages / 4 - 1} holds lines.`,
    });
  });

  it('is exported as one JSON document, written as its messages are read', async () => {
    const { stateRoot, transcript, env } = large();
    const to = join(stateRoot, 'exported.json');
    const exported = await runCliChild(['export', transcript, '--to', to, '--format', 'json'], { env });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(JSON.parse(await readFile(to, 'utf8'))).toMatchObject({ id: 'large', view: 'canonical' });
  });

  it('is rendered as one page in a heap far smaller than its messages held whole', async () => {
    const dir = await tempDir('rxstore-large-view-');
    const transcript = join(dir, 'large.jsonl');
    const messages = await writeTranscript(transcript, 64 * MiB);
    const to = join(dir, 'large.html');
    // Its messages held whole take some 110 MiB of heap: a page made from them runs out of this one.
    const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), NODE_OPTIONS: '--max-old-space-size=48' };
    const viewed = await runCliChild(['view', transcript, '--to', to], { env });
    expect(viewed.stderr).toBe('');
    expect(viewed.code).toBe(0);
    expect(viewed.stdout).toBe(`wrote ${to}: an HTML page of ${messages} messages\n`);
    const page = await readFile(to, 'utf8');
    expect(page).toContain(`File ${messages / 4 - 1} holds lines.`);
    expect(page.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('is printed to a reader that stops reading without being held: the printing waits for it', async () => {
    const transcript = join(await tempDir('rxstore-slow-reader-'), 'large.jsonl');
    const messages = await writeTranscript(transcript, 64 * MiB);
    const child = spawn(process.execPath, [rxstoreBin, 'cat', transcript], {
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=96' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout.pause();
    // Not read until the command stops using the processor (it waits for its reader), or ends: one that
    // printed on regardless holds what its reader has not taken, the whole transcript, and runs out of heap.
    const cpuTicks = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    };
    for (let last = -1; child.exitCode === null && child.signalCode === null; ) {
      await sleep(250);
      let now: number;
      try {
        now = cpuTicks();
      } catch {
        break;
      }
      if (now === last) break;
      last = now;
    }
    let printed = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
    child.stdout.resume();
    const code = await closed;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(printed.trimEnd().split('\n')).toHaveLength(messages);
  });
});
