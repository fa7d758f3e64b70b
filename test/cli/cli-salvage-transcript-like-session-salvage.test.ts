// JSONL salvage behaves as session salvage does: a second run finds its salvage there, a --to folder
// that is not there is refused with a coded line, and what it keeps is what Reasonix sends the model.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fixture } from '../support/fixtures.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const SYSTEM = { role: 'system', content: 'You are terse.' };
const USER = { role: 'user', content: 'list the files' };
const CALL = {
  role: 'assistant',
  content: '',
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
};
const ORPHAN = { role: 'tool', tool_call_id: 'call_1', content: 'ORPHAN RESULT a.txt b.txt' };
const AFTER = { role: 'user', content: 'thanks' };
const line = (message: object) => JSON.stringify(message);

/** A transcript whose assistant line with the tool call was cut mid-write: its tool result answers nothing. */
async function cutCall(): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('rxstore-salvage-jsonl-');
  const file = join(dir, 'chat.jsonl');
  await writeFile(
    file,
    `${line(SYSTEM)}\n${line(USER)}\n${line(CALL).slice(0, 40)}\n${line(ORPHAN)}\n${line(AFTER)}\n`,
  );
  return { dir, file };
}

describe('JSONL salvage, as session salvage', () => {
  it('run twice, the second run finds the first salvage and writes nothing', async () => {
    const { dir, file } = await cutCall();
    const first = await runCliChild(['salvage', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^\S+chat\.jsonl: salvaged into \S+chat-salvaged\.jsonl: 3 messages kept, 2 lines left out\n/,
    );
    const second = await runCliChild(['salvage', file]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^\S+chat\.jsonl: already salvaged into \S+chat-salvaged\.jsonl: /);
    expect((await readdir(dir)).sort()).toEqual(['chat-salvaged.jsonl', 'chat.jsonl']);
  });

  it('a --to folder that does not exist is refused with a coded line, exit 2, and nothing is written, as session salvage refuses it', async () => {
    const { dir, file } = await cutCall();
    const missing = join(dir, 'no-such-folder');
    for (const source of [file, fixture('tool-calls').dir]) {
      const run = await runCliChild(['salvage', source, '--to', missing]);
      expect(run).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `rxstore: RX_PATH_KIND: ${missing}: no such folder; create it first\n`,
      });
    }
    expect(await readdir(dir)).toEqual(['chat.jsonl']);
  });

  it('a tool result whose call was left out is left out too, and said so', async () => {
    const { file } = await cutCall();
    const run = await runCliChild(['salvage', file, '--dry-run']);
    expect(run.stdout).toContain('  line 3: the line ends inside a message');
    expect(run.stdout).toContain(
      '  line 4: a tool result whose call is not in the assistant message just before it, which Reasonix leaves out of what it sends the model\n',
    );
  });
});

describe.skipIf(!reasonixBinary())(
  reasonixTitle('what Reasonix 1.38.11 does with a tool result whose call is gone'),
  () => {
    /** Resumes a transcript by path with the real Reasonix; what the model was sent, role and content. */
    async function sentOnResume(transcript: string): Promise<[string, unknown][]> {
      const mock = await startMockModel([{ text: 'Resumed.' }]);
      try {
        const run = await runReasonix({
          home: await tempDir('rxstore-home-'),
          cwd: await tempDir('rxstore-ws-'),
          args: ['run', '--resume', transcript, 'go on'],
          mock,
        });
        expect(run.code, run.stderr).toBe(0);
        return mock.chatRequests()[0]!.messages.map((message) => [message.role, message.content]);
      } finally {
        await mock.close();
      }
    }

    it('Reasonix drops it from the request without a word; salvage leaves it out, and Reasonix sends every line salvage kept', async () => {
      // What salvage kept before: the orphan among the good lines. Reasonix resumes it, and sends it nowhere.
      const dir = await tempDir('rxstore-orphan-');
      const withOrphan = join(dir, 'with-orphan.jsonl');
      await writeFile(withOrphan, [SYSTEM, USER, ORPHAN, AFTER].map(line).join('\n') + '\n');
      const sentWithOrphan = await sentOnResume(withOrphan);
      expect(sentWithOrphan).toContainEqual(['user', AFTER.content]);
      expect(JSON.stringify(sentWithOrphan)).not.toContain('ORPHAN RESULT');

      const { file } = await cutCall();
      const report = JSON.parse((await runCliChild(['salvage', file, '--json'])).stdout) as {
        newPath: string;
        linesKept: number;
      };
      const kept = (await readFile(report.newPath, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((text) => JSON.parse(text) as { role: string; content: string });
      expect(kept.map((message) => message.role)).toEqual(['system', 'user', 'user']);
      const sent = await sentOnResume(report.newPath);
      for (const message of kept.slice(1)) expect(sent).toContainEqual([message.role, message.content]);
    });
  },
);
