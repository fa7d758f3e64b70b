// The name a JSONL salvage would take, planted with a FIFO or a huge file: the salvage is never held waiting on it,
// never reads it whole, and takes the next free name, leaving what stands there as it was.
import { execFileSync } from 'node:child_process';
import { lstat, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

describe.skipIf(process.platform === 'win32')('a salvage whose name is taken by what rxstore did not write', () => {
  it('a FIFO and a 3 GB sparse file at the names are passed over: the transcript goes to the next free one', async () => {
    const dir = await tempDir('rxstore-salvage-fifo-');
    const file = join(dir, 'chat.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ role: 'user', content: 'hello' })}\n{"role":"assistant","content":"cut\n`,
    );
    execFileSync('mkfifo', [join(dir, 'chat-salvaged.jsonl')]);
    const huge = await open(join(dir, 'chat-salvaged-2.jsonl'), 'w');
    await huge.truncate(3 * 1024 ** 3);
    await huge.close();
    const run = await runCli(['salvage', file, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ action: 'salvaged', newPath: join(dir, 'chat-salvaged-3.jsonl') });
    expect(await readFile(join(dir, 'chat-salvaged-3.jsonl'), 'utf8')).toBe(
      `${JSON.stringify({ role: 'user', content: 'hello' })}\n`,
    );
    expect((await lstat(join(dir, 'chat-salvaged.jsonl'))).isFIFO()).toBe(true);
    expect((await lstat(join(dir, 'chat-salvaged-2.jsonl'))).size).toBe(3 * 1024 ** 3);
  });
});
