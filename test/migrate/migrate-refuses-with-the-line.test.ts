// A transcript Reasonix would refuse to migrate is refused before anything is written, naming the line: a
// message id used twice, and a transcript record key held twice — a tool call answered twice (Reasonix:
// `duplicate transcript record "tool:…"`), a notice's place named by another message's id — which were refused
// only by the write, with no line, once every message before it was written.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../../src/migrate/jsonl-to-v4.js';
import { tempDir } from '../support/temp-dir.js';

const lines = (...messages: object[]) => `${messages.map((message) => JSON.stringify(message)).join('\n')}\n`;
const call = {
  role: 'assistant',
  content: '',
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
};

async function migrated(text: string) {
  const base = await tempDir('rxstore-migrate-refused-');
  const workspace = join(base, 'ws');
  const sessions = join(base, 'state', 'projects', '-tmp-refused', 'sessions');
  await mkdir(sessions, { recursive: true });
  await mkdir(workspace);
  const transcript = join(sessions, 'refused.jsonl');
  await writeFile(transcript, text);
  const outcome = await migrateJsonlToV4(transcript, { stateRoot: join(base, 'state'), cwd: workspace }).catch(
    (error: unknown) => error,
  );
  return { outcome, transcript, stores: await readdir(join(base, 'state', 'projects', '-tmp-refused')) };
}

describe('migrate jsonl-to-v4 of a transcript Reasonix refuses', () => {
  it.each([
    {
      what: 'a message id used twice',
      text: lines(
        { role: 'user', id: 'X1', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', id: 'X1', content: 'c' },
      ),
      said: 'line 3: duplicate message id "X1"',
      line: 3,
    },
    {
      what: 'a tool call answered twice',
      text: lines(
        { role: 'user', content: 'run it' },
        call,
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
        { role: 'assistant', content: 'again' },
        { role: 'tool', tool_call_id: 'c1', content: 'two' },
      ),
      said: 'line 5: a second result for tool call "c1" (Reasonix refuses: session: initialize transcript for "%ID%": duplicate transcript record "tool:c1")',
      line: 5,
    },
    {
      what: "a message whose id names the place of another's notice",
      text: lines(
        {
          role: 'user',
          id: 'U1',
          content: 'go',
          decision_receipts: [{ id: 'r', kind: 'k', tool: 't', subject: 's', outcome: 'o' }],
        },
        { role: 'assistant', id: 'U1:notice:1', content: 'b' },
      ),
      said: 'line 2: a second transcript record "m:U1:notice:1" (Reasonix refuses: session: initialize transcript for "%ID%": duplicate transcript record "m:U1:notice:1")',
      line: 2,
    },
  ])('$what: refused at its line, nothing written', async ({ text, said, line }) => {
    const { outcome, transcript, stores } = await migrated(text);
    expect(outcome).toMatchObject({
      code: 'RX_MIGRATION_REFUSED',
      // The session's id is the one the migration would give it (docs/format.md §10.1).
      message: expect.stringMatching(new RegExp(escapeRegExp(said).replace('%ID%', '[0-9a-f]{24}'))),
      data: { file: transcript, line },
    });
    // Only the transcript's own store: no sessions-v4 was made.
    expect(stores).toEqual(['sessions']);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
