// Messages about a transcript's lines show that line, visibly, in one wording whichever command
// reads it; a transcript that fails to migrate points at salvage; a .jsonl.meta that is not JSON
// is said by migrate as inspect says it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { tempDir } from '../support/temp-dir.js';

const GOOD = ['{"role":"user","content":"hi"}', '{"role":"assistant","content":"hello"}'];

async function transcript(name: string, text: string | Buffer): Promise<{ dir: string; path: string }> {
  const dir = await tempDir('rxstore-line-messages-');
  const path = join(dir, name);
  await writeFile(path, text);
  return { dir, path };
}

/** What inspect, migrate --dry-run and salvage --dry-run each say of the transcript. */
async function saidOf(path: string, dir: string) {
  const inspect = await runCliChild(['inspect', path]);
  await mkdir(join(dir, 'store'), { recursive: true });
  const migrate = await runCliChild(['migrate', 'jsonl-to-v4', path, '--dry-run', '--to', join(dir, 'store')]);
  const salvage = await runCliChild(['salvage', path, '--dry-run']);
  return { inspect: inspect.stdout, migrate: migrate.stdout, salvage: salvage.stdout, migrateCode: migrate.code };
}

describe('a transcript line a reader stops at', () => {
  it('a byte-order mark is named, never shown as an invisible character', async () => {
    const { path, dir } = await transcript(
      'bom.jsonl',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${GOOD.join('\n')}\n`)]),
    );
    const said = await saidOf(path, dir);
    for (const text of [said.inspect, said.migrate]) {
      expect(text).toContain('a byte-order mark (U+FEFF) at its start');
      expect(text).not.toContain('\ufeff');
    }
    expect(said.salvage).toContain('the byte-order mark at its start was left out');
  });

  it('a bad line 3 shows line 3, never text of line 4, in Go’s words in every command', async () => {
    const lines = [...GOOD, '{"role":"user","content":"cut"', '{"role":"assistant","content":"LINE FOUR"}'];
    const { path, dir } = await transcript('cut.jsonl', `${lines.join('\n')}\n`);
    const said = await saidOf(path, dir);
    expect(said.inspect).toMatch(
      /line 3: not JSON \(invalid character '\{' after object key:value pair\) at line 4: the message does not end on its line .*; the line reads: \{"role":"user","content":"cut"\n/,
    );
    expect(said.migrate).toMatch(
      /^\[1\/1\] failed \S+cut\.jsonl:3: not JSON \(invalid character '\{' after object key:value pair\) at line 4/m,
    );
    expect(said.salvage).toContain(
      'line 3: the line ends inside a message (a line cut mid-write?); the line reads: {"role":"user","content":"cut"\n',
    );
    for (const text of [said.inspect, said.migrate, said.salvage]) {
      expect(text).not.toContain('LINE FOUR');
      // JavaScript's parser's own words are never shown.
      expect(text).not.toMatch(/in JSON at position|is not valid JSON|Expected ','|Bad control character/);
    }
  });

  it('a transcript that fails to migrate is pointed at salvage (exit 1)', async () => {
    const { path, dir } = await transcript('bad.jsonl', `${GOOD[0]}\nnot a message\n`);
    const said = await saidOf(path, dir);
    expect(said.migrateCode).toBe(1);
    expect(said.migrate).toContain(
      `line reads: not a message (RX_JSONL_LINE); rxstore salvage ${path} keeps the lines that are messages`,
    );
  });

  it('migrate warns of a .jsonl.meta that is not JSON, as inspect does', async () => {
    const { path, dir } = await transcript('meta.jsonl', `${GOOD.join('\n')}\n`);
    await writeFile(`${path}.meta`, '{"workspace_root": ');
    const said = await saidOf(path, dir);
    expect(said.inspect).toMatch(
      /warning +RX_JSONL_META \S+meta\.jsonl\.meta: invalid \.jsonl\.meta: not JSON \(unexpected end of JSON input\)/,
    );
    expect(said.migrate).toContain(
      'warning: invalid .jsonl.meta (not JSON: unexpected end of JSON input): it declares no workspace (RX_JSONL_META)',
    );
  });

  it('a .jsonl.meta that is not JSON at all is said in Go’s words too, naming its first wrong character', async () => {
    const { path, dir } = await transcript('words.jsonl', `${GOOD.join('\n')}\n`);
    await writeFile(`${path}.meta`, 'not json');
    const said = await saidOf(path, dir);
    expect(said.inspect).toMatch(
      /warning +RX_JSONL_META \S+words\.jsonl\.meta: invalid \.jsonl\.meta: not JSON \(invalid character 'o' looking for beginning of value\)/,
    );
    expect(said.migrate).toContain(
      "warning: invalid .jsonl.meta (not JSON: invalid character 'o' looking for beginning of value): it declares no workspace (RX_JSONL_META)",
    );
    for (const text of [said.inspect, said.migrate]) expect(text).not.toMatch(/Unexpected token|not valid JSON/);
  });
});
