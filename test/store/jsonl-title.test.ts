// A JSONL transcript's title, when its meta gives none, is the first message a person typed, as a
// v4 copy's is: never the host's session-context message that Reasonix writes first.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

it('a transcript without a meta title is titled by the first message a person typed, not the host context', async () => {
  const home = await tempDir('rxstore-jsonl-title-');
  const sessions = join(home, 'projects', '-tmp-ws', 'sessions');
  await mkdir(sessions, { recursive: true });
  const lines = [
    { role: 'system', content: 'You are helpful.' },
    {
      role: 'user',
      origin: 'host',
      content:
        '<session-context version="1">\nThis host-generated snapshot names the workspace: /tmp/ws\n</session-context>',
    },
    { role: 'user', content: 'Say hello with echo' },
    { role: 'assistant', content: 'hello' },
  ];
  await writeFile(join(sessions, 'hello.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const run = await runCli(['ls', '--state-home', home, '--json', '--no-cache']);
  expect(run.code, run.stderr).toBe(0);
  const [listed] = JSON.parse(run.stdout) as ListedSession[];
  expect(listed).toMatchObject({ id: 'hello', store: 'jsonl', title: 'Say hello with echo' });
});
