import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * A transcript whose `.jsonl.meta` is not valid is resumed by Reasonix 1.38.11 (it does without the meta:
 * test/reasonix/reads/reasonix-jsonl-rules, jsonl-meta-matches-reasonix), and `inspect` warns (`RX_JSONL_META`):
 * `ls` lists it as sound, naming the meta's problem. (A meta of `null` is none of these: Go reads it as empty.)
 */
describe('ls of a transcript whose meta is not valid', () => {
  it.each([
    ['not JSON', '{not json'],
    ['an array', '[]'],
    ['a number for its title', '{"custom_title":5}'],
  ])('%s: listed ok, the problem named', async (_, meta) => {
    const source = fixture('jsonl-migrated');
    const root = await tempDir('rxstore-ls-meta-');
    await cp(source.root, root, { recursive: true });
    const sessions = join(root, 'projects', '-tmp-rxstore-fixture-ws-jsonl-migrated');
    await rm(join(sessions, 'sessions-v4'), { recursive: true });
    await writeFile(join(sessions, 'sessions', 'legacy-demo.jsonl.meta'), meta);
    const listed = await runCli(['ls', '--state-home', root, '--no-cache', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [row] = JSON.parse(listed.stdout) as { id: string; status: string; problem: string | null }[];
    expect(row).toMatchObject({
      id: 'legacy-demo',
      status: 'ok',
      problem: expect.stringMatching(/^invalid legacy-demo\.jsonl\.meta: /),
    });
    const inspected = await runCli(['inspect', join(sessions, 'sessions', 'legacy-demo.jsonl')]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout + inspected.stderr).toContain('RX_JSONL_META');
  });
});
