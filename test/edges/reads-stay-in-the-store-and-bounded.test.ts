// Reads at the machine's edges: a content object far larger than memory should hold is hashed a
// block at a time, never read whole before its digest holds; no link among the store's folders
// leads a read out of the store; and no error echoes what a file holds.
import { constants } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, symlink, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentStore, CorruptContentError } from '../../src/codec/index.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

const GiB = 1024 ** 3;

/** A sparse file of `size` zero bytes: big on paper, nothing written. */
async function sparse(path: string, size: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, '');
  await truncate(path, size);
}

/** SHA-256 of `size` zero bytes, a block at a time. */
function zerosDigest(size: number): string {
  const hash = createHash('sha256');
  const block = Buffer.alloc(16 * 1024 * 1024);
  for (let left = size; left > 0; left -= block.length)
    hash.update(left >= block.length ? block : block.subarray(0, left));
  return hash.digest('hex');
}

describe('a content object larger than memory should hold', () => {
  it('of 2.5 GiB is refused as too large for rxstore, naming the file, before a byte of it is read', async () => {
    const store = new ContentStore(join(await tempDir('rxstore-huge-'), '.content-v1'));
    const digest = 'ab'.repeat(32);
    const size = 2.5 * GiB;
    await sparse(store.objectPath(digest), size);
    const error = await store.read({ digest, bytes: size }).catch((thrown: unknown) => thrown);
    // Read whole, it was a RangeError past 2 GiB: an uncoded engine message.
    expect(error).toMatchObject({
      code: 'RX_TOO_LARGE',
      family: 'environment',
      data: { file: store.objectPath(digest), found: size },
    });
  });

  it('of one byte more than a string holds is refused as too large, not as damage', async () => {
    const store = new ContentStore(join(await tempDir('rxstore-huge-'), '.content-v1'));
    const digest = 'cd'.repeat(32);
    const size = constants.MAX_STRING_LENGTH + 1;
    await sparse(store.objectPath(digest), size);
    const error = await store.read({ digest, bytes: size }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'RX_TOO_LARGE', data: { file: store.objectPath(digest), found: size } });
  });

  it('of 40 MiB whose digest is wrong is hashed a block at a time and refused as corrupt', async () => {
    const store = new ContentStore(join(await tempDir('rxstore-huge-'), '.content-v1'));
    const digest = 'ef'.repeat(32);
    const size = 40 * 1024 * 1024;
    await sparse(store.objectPath(digest), size);
    const error = await store.read({ digest, bytes: size }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(CorruptContentError);
    expect(error).toMatchObject({
      message: `content object digest is ${zerosDigest(size)}, expected ${digest}`,
      data: { file: store.objectPath(digest) },
    });
  });
});

describe('no link leads a content read out of the store', () => {
  const source = fixture('payload-ref');

  async function withLinkedFolder(which: 'store' | 'shard') {
    const dir = await copySession(source.dir);
    const content = join(dirname(dir), '.content-v1');
    const outside = await tempDir('rxstore-outside-');
    // The folder moved out, a link left in its place: every byte is where the link leads.
    const folder = which === 'store' ? content : join(content, 'objects', (await firstShard(content))!);
    await rename(folder, join(outside, 'moved'));
    await symlink(join(outside, 'moved'), folder);
    return { dir, folder };
  }

  // The store's own folder a link is followed, as Reasonix 1.38.11 follows it (content-root-link-matches-reasonix).
  it('a symlinked store folder is read through, its objects checked as ever', async () => {
    const { dir } = await withLinkedFolder('store');
    const read = await readSession(dir, { caches: false });
    expect(read.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(read.status).toBe('ok');
  });

  it.each(['shard'] as const)('a symlinked %s folder is refused, naming the link', async (which) => {
    const { dir, folder } = await withLinkedFolder(which);
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.problems.find((problem) => problem.severity === 'error')).toMatchObject({
      code: 'RX_CORRUPT_CONTENT',
      message: expect.stringMatching(
        /: content store folder is a symlink, which rxstore does not follow out of the store$/,
      ),
      data: { file: folder },
    });
  });
});

describe('no error echoes what a file holds', () => {
  it('a manifest linked to a password file is invalid JSON, and not one byte of it is said', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const secret = join(await tempDir('rxstore-outside-'), 'passwd');
    await writeFile(secret, 'root:x:0:0:root:/root:/bin/bash\n');
    const manifest = join(dir, 'manifest.json');
    await rename(manifest, `${manifest}.kept`);
    await symlink(secret, manifest);
    const result = await runCli(['inspect', dir, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).problems).toContainEqual(
      expect.objectContaining({ code: 'RX_MANIFEST_INVALID', data: { file: manifest } }),
    );
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/root:x|\/bin\/bash/);
  });
});

async function firstShard(content: string): Promise<string | undefined> {
  return (await readdir(join(content, 'objects'))).find((name) => /^[0-9a-f]{2}$/.test(name));
}
