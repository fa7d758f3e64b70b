// After a relocation, a session whose messages still name the old folder is named by the folder it is
// resumed from, in `inspect` and on its `view` page as in `ls` (docs/commands.md, relocate).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/session/writing/create-session.js';
import { runCliChild } from '../support/cli-child.js';
import { complete, messageId, sampleBatches } from '../support/sessions/sample-session.js';
import { movedProject, storeOf } from '../support/sessions/relocation-fixture.js';
import { tempDir } from '../support/temp-dir.js';

/** A session whose history names the old folder, as Reasonix's host message of each turn does, and reads a file there. */
async function sessionNamingTheOldFolder(home: string, from: string): Promise<string> {
  const named = 'c0000000000000000000000000000000';
  const context = `<session-context version="1">\n## Workspace\n\nCurrent workspace: ${JSON.stringify(from)}\n</session-context>`;
  await createSession({
    storeDir: storeOf(home, from),
    sessionId: named,
    batches: [
      ...sampleBatches(),
      {
        operationId: 'turn-context',
        events: [complete({ role: 'user', id: messageId(), origin: 'host', content: context })],
      },
      {
        operationId: 'read-by-absolute-path',
        events: [
          complete({
            role: 'assistant',
            id: messageId(),
            tool_calls: [
              { id: 'call_guide', name: 'read_file', arguments: JSON.stringify({ path: `${from}/docs/guide.md` }) },
            ],
          }),
          complete({
            role: 'tool',
            id: messageId(),
            tool_call_id: 'call_guide',
            name: 'read_file',
            content: 'The guide.',
          }),
        ],
      },
    ],
  });
  return named;
}

describe('a relocated session, read on its own', () => {
  it('is named by its new folder in inspect and on its page, as ls names it', async () => {
    const { home, from, to, v4 } = await movedProject();
    const named = await sessionNamingTheOldFolder(home, from);
    v4.push(named);
    expect((await runCliChild(['relocate', from, to, '--home', home])).code).toBe(0);
    const listed = await runCliChild(['ls', '--json', '--home', home, '--no-cache']);
    const workspaceOf = new Map(
      (JSON.parse(listed.stdout) as { id: string; workspace: string | null }[]).map((row) => [row.id, row.workspace]),
    );
    // The first names the old folder in its header.json (rewritten by the move); the last in its history.
    expect(workspaceOf.get(v4[0]!)).toBe(to);
    expect(workspaceOf.get(named)).toBe(to);
    const out = await tempDir('rxstore-relocated-view-');
    for (const id of v4) {
      const dir = join(storeOf(home, to), id);
      const inspected = await runCliChild(['inspect', dir, '--json']);
      expect(inspected.code, inspected.stderr).toBe(0);
      expect(JSON.parse(inspected.stdout).workspace, id).toBe(workspaceOf.get(id));
      const page = join(out, `${id}.md`);
      expect((await runCliChild(['view', dir, '--to', page])).code).toBe(0);
      const facts = (await readFile(page, 'utf8')).split('\n').filter((line) => line.startsWith('- **'));
      // Its messages may name the old folder (what it read there); the page's header does not.
      for (const fact of facts) expect(fact, id).not.toContain(from);
      expect(facts).toContain(`- **Workspace:** \`${workspaceOf.get(id) ?? '—'}\``);
    }
  });

  it('is found by the files it touched, asked for by their paths in the new folder', async () => {
    const { home, from, to } = await movedProject();
    const named = await sessionNamingTheOldFolder(home, from);
    expect((await runCliChild(['relocate', from, to, '--home', home])).code).toBe(0);
    const cache = await tempDir('rxstore-relocated-search-');
    for (const file of [`${to}/docs/guide.md`, `${to}/big.txt`]) {
      const run = await runCliChild(['search', '--file', file, '--json', '--home', home], {
        env: { XDG_CACHE_HOME: cache },
      });
      expect(run.code, `${file}: ${run.stderr}`).toBe(0);
      const hits = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { sessionId: string; workspace: string });
      expect(hits.map((hit) => hit.sessionId)).toContain(named);
      expect(hits.find((hit) => hit.sessionId === named)!.workspace).toBe(to);
    }
  });
});
