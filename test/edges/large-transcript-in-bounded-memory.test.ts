// A JSONL transcript is read a run of messages at a time wherever its messages are not kept: a listing,
// inspect and cat of one larger than the heap answer, as they do of a sessions-v4 log, instead of a V8 crash.
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
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

describe('a JSONL transcript larger than the heap', () => {
  it('is listed, inspected and printed in memory that does not grow with it', async () => {
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
    const listed = await runCliChild(['ls', '--no-cache', '--json', '--state-home', stateRoot], { env });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: 'large', status: 'ok', messages }]);
    const inspected = await runCliChild(['inspect', transcript, '--json'], { env });
    expect(inspected.stderr).toBe('');
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ status: 'ok' });
    // What a person reads of it, every message, the last one as it was written.
    const printed = await runCliChild(['cat', transcript], { env });
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const lines = printed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(messages);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ role: 'assistant', content: `File ${messages / 4 - 1} holds lines.` });
  });
});
