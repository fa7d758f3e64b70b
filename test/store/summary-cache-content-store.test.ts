// The summary cache keeps a verdict while a session's own files stand; a payload in the store's
// `.content-v1` lives outside them. Once an object a payload came from is gone or changed, Reasonix
// 1.38.11 refuses the session (the fault matrix), and a warm `ls` must not keep listing it as ok.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListedSession } from '../../src/store/listing/describe-conversation.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { layForResume } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';
import { cachePerTest } from '../support/cache-per-test.js';

cachePerTest();

async function objectsUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) found.push(join(entry.parentPath, entry.name));
  return found;
}

describe('ls with a warm summary cache and a session whose payloads live in the content store', () => {
  const source = fixture('payload-ref');
  const listed = async (home: string, ...extra: string[]) => {
    const run = await runCli(['ls', '--state-home', home, '--json', ...extra]);
    return (JSON.parse(run.stdout) as ListedSession[]).find((row) => row.id === source.id)!;
  };

  it('lists it from the cache while the store stands, and damaged once the store is removed', async () => {
    const home = await tempDir('rxstore-content-ls-');
    const dir = await layForResume(source.dir, home, source.workspace);
    expect(await listed(home)).toMatchObject({ status: 'ok', checked: 'now' });
    expect(await listed(home)).toMatchObject({ status: 'ok', checked: 'cache' });
    await rm(join(dirname(dir), '.content-v1'), { recursive: true });
    expect(await listed(home, '--no-cache')).toMatchObject({ status: 'damaged' });
    expect(await listed(home)).toMatchObject({ status: 'damaged', checked: 'now' });
  });

  it('lists it damaged once its objects were rewritten in place with other bytes of the same size', async () => {
    const home = await tempDir('rxstore-content-ls-');
    const dir = await layForResume(source.dir, home, source.workspace);
    expect(await listed(home)).toMatchObject({ status: 'ok', checked: 'now' });
    for (const object of await objectsUnder(join(dirname(dir), '.content-v1', 'objects'))) {
      const bytes = await readFile(object);
      const middle = bytes.length >> 1;
      bytes[middle] = bytes[middle]! ^ 0x01;
      await writeFile(object, bytes);
    }
    expect(await listed(home, '--no-cache')).toMatchObject({ status: 'damaged' });
    expect(await listed(home)).toMatchObject({ status: 'damaged', checked: 'now' });
  });
});
