// The real-Reasonix harness itself: the mock speaks the provider protocol, and Reasonix resumes a committed
// fixture (its request is the oracle for what it read) and refuses a damaged copy (driving-reasonix-offline.md).
import { readFileSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { COMPACTION_SUMMARY_TEXT, FALLBACK_TEXT, startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const bin = reasonixBinary();

describe('mock model', () => {
  it('answers non-streaming requests from the script, then falls back; compaction requests do not consume it', async () => {
    const mock = await startMockModel([
      { text: 'scripted', toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'ls' } }] },
    ]);
    try {
      const post = async (
        content: string,
      ): Promise<{ choices: { message: { content: string; tool_calls?: unknown[] } }[] }> => {
        const response = await fetch(`${mock.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-model', stream: false, messages: [{ role: 'user', content }] }),
        });
        return (await response.json()) as { choices: { message: { content: string; tool_calls?: unknown[] } }[] };
      };
      const summary = await post('Compact the preceding conversation prefix into a durable resume briefing.');
      const first = await post('hello');
      const second = await post('again');
      expect(summary.choices[0]?.message.content).toBe(COMPACTION_SUMMARY_TEXT);
      expect(first.choices[0]?.message).toMatchObject({
        content: 'scripted',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
      });
      expect(second.choices[0]?.message.content).toBe(FALLBACK_TEXT);
      expect(mock.chatRequests().map((r) => r.messages[0]?.content)).toEqual([
        'Compact the preceding conversation prefix into a durable resume briefing.',
        'hello',
        'again',
      ]);
      const models = (await (await fetch(`${mock.baseUrl}/models`)).json()) as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).toEqual(['mock-model']);
    } finally {
      await mock.close();
    }
  });
});

describe.skipIf(!bin)(reasonixTitle('real Reasonix harness'), () => {
  it('resumes the tool-calls fixture and sends Reasonix its earlier messages', async () => {
    const { dir } = fixture('tool-calls');
    const workspace = join(await tempDir('rxstore-harness-ws-'), 'ws');
    const result = await resumeWithReasonix(dir, {
      workspace,
      home: await tempDir('rxstore-harness-home-'),
      prompt: 'What did we do so far?',
      mock: [{ text: 'We listed, failed, read, wrote and edited.' }],
    });
    expect(result.code, result.stderr).toBe(0);
    const messages = result.requests[0]?.messages ?? [];
    const contents = messages.map((m) => m.content);
    expect(messages[0]?.role).toBe('system');
    expect(contents).toContain('List the files in this workspace.');
    expect(contents).toContain('The workspace holds notes.txt.');
    expect(contents).toContain('Show the contents of the missing directory.');
    expect(messages.find((m) => m.tool_call_id === 'call_missing')?.content).toMatch(/exit status 2/);
    const parallel = messages.find((m) => m.tool_calls?.length === 2);
    expect(parallel?.tool_calls?.map((c) => [c.id, c.function.name])).toEqual([
      ['call_read', 'read_file'],
      ['call_write', 'write_file'],
    ]);
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'What did we do so far?' });
    // The new turn was appended to the copy, never to the fixture.
    expect(readFileSync(join(result.sessionDir, 'events.frames')).length).toBeGreaterThan(
      readFileSync(join(dir, 'events.frames')).length,
    );
  }, 60_000);

  it('refuses a copy with one byte flipped in a middle frame and leaves the log unchanged', async () => {
    const { dir } = fixture('tool-calls');
    const damaged = join(await tempDir('rxstore-harness-damaged-'), basename(dir));
    await cp(dir, damaged, { recursive: true });
    const log = await readFile(join(damaged, 'events.frames'));
    const offset = middleFramePayloadOffset(log);
    log[offset] = (log[offset] ?? 0) ^ 0xff;
    await writeFile(join(damaged, 'events.frames'), log);

    const result = await resumeWithReasonix(damaged, {
      workspace: join(await tempDir('rxstore-harness-ws-'), 'ws'),
      home: await tempDir('rxstore-harness-home-'),
      prompt: 'Continue.',
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('damaged session store');
    expect(result.requests).toEqual([]);
    expect((await readFile(join(result.sessionDir, 'events.frames'))).equals(log)).toBe(true);
  }, 60_000);
});

/** Offset of the middle byte of the compressed bytes of the middle RX4F frame (12-byte headers, docs/format.md §3.1). */
function middleFramePayloadOffset(log: Buffer): number {
  const frames: { start: number; size: number }[] = [];
  for (let at = 0; at < log.length; at += 12 + log.readUInt32BE(at + 4)) {
    frames.push({ start: at + 12, size: log.readUInt32BE(at + 4) });
  }
  const middle = frames[Math.floor(frames.length / 2)];
  if (!middle) throw new Error('empty log');
  return middle.start + Math.floor(middle.size / 2);
}
