import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSession } from '../../src/index.js';
import { runCli } from '../support/inspect-json-schema.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const good = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
];
const after = { role: 'user', content: 'second question' };

/** A transcript whose fourth line was cut mid-write and then written past, with its meta. */
async function damagedTranscript(): Promise<{ dir: string; file: string; bytes: Buffer }> {
  const dir = await tempDir();
  const file = join(dir, 'notes-chat.jsonl');
  await writeFile(
    file,
    `${good.map((message) => JSON.stringify(message)).join('\n')}\n{"role":"assistant","content":"cut\n${JSON.stringify(after)}\n`,
  );
  await writeFile(
    `${file}.meta`,
    JSON.stringify({
      id: 'notes-chat',
      created_at: '2026-01-02T03:04:05Z',
      updated_at: '2026-01-02T03:05:00Z',
      custom_title: 'Notes chat',
    }),
  );
  return { dir, file, bytes: await readFile(file) };
}

describe('salvage of a JSONL transcript with bad lines', () => {
  it('writes every message line, in order and byte for byte, to a new transcript with its meta, lists the bad lines, and leaves the original alone', async () => {
    const { dir, file, bytes } = await damagedTranscript();
    const dry = await runCli(['salvage', file, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ action: 'would-salvage', linesKept: 4, dropped: [{ line: 4 }] });
    const salvaged = await runCli(['salvage', file, '--json']);
    expect(salvaged.code, salvaged.stderr).toBe(0);
    const report = JSON.parse(salvaged.stdout);
    expect(report).toMatchObject({
      action: 'salvaged',
      newPath: join(dir, 'notes-chat-salvaged.jsonl'),
      newId: 'notes-chat-salvaged',
      linesKept: 4,
    });
    expect(report.dropped).toEqual([
      { line: 4, reason: expect.stringMatching(/^line 4: the line ends inside a message/) },
    ]);
    expect(await readFile(report.newPath, 'utf8')).toBe(
      `${[...good, after].map((message) => JSON.stringify(message)).join('\n')}\n`,
    );
    expect(JSON.parse(await readFile(`${report.newPath}.meta`, 'utf8'))).toMatchObject({
      id: 'notes-chat-salvaged',
      custom_title: 'Notes chat',
    });
    expect(await readFile(file)).toEqual(bytes);
    // The salvaged transcript reads whole; a second salvage finds it there, as session salvage does.
    const read = await (await openSession(report.newPath)).read();
    expect(read.status).toBe('ok');
    expect(JSON.parse((await runCli(['salvage', file, '--json'])).stdout)).toMatchObject({
      action: 'already-salvaged',
      newPath: join(dir, 'notes-chat-salvaged.jsonl'),
    });
  });

  it('a transcript with no message line at all is refused, and nothing is written', async () => {
    const dir = await tempDir();
    const file = join(dir, 'garbage.jsonl');
    await writeFile(file, 'not json\n[1,2]\n');
    const { code, stderr } = await runCli(['salvage', file]);
    // The operation is refused (exit 1), as every refusal is.
    expect(code).toBe(1);
    expect(stderr).toMatch(/garbage\.jsonl: no line of it is a message/);
  });

  it.skipIf(!reasonixBinary())(
    reasonixTitle(
      'the real Reasonix refuses nothing of the salvaged transcript: resumed by path, the model is sent every kept message',
    ),
    async () => {
      const { file } = await damagedTranscript();
      const report = JSON.parse((await runCli(['salvage', file, '--json'])).stdout);
      const home = await tempDir('rxstore-home-');
      const workspace = await tempDir('rxstore-ws-');
      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        const run = await runReasonix({
          home,
          cwd: workspace,
          args: ['run', '--resume', report.newPath, 'go on'],
          mock,
        });
        expect(run.code, run.stderr).toBe(0);
        const sent = mock.chatRequests()[0]!.messages.map((message) => [message.role, message.content]);
        for (const message of [...good.slice(1), after]) expect(sent).toContainEqual([message.role, message.content]);
      } finally {
        await mock.close();
      }
    },
  );
});
