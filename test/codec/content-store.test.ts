import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentStore } from '../../src/codec/content-store.js';
import { CorruptContentError, MissingContentError } from '../../src/errors/index.js';
import { PayloadRefSchema } from '../../src/codec/records.js';
import { tempDir } from '../support/temp-dir.js';

const payload = Buffer.from(JSON.stringify({ message: { role: 'tool', id: 'x', content: 'y'.repeat(2_500_000) } }));

describe('the content store', () => {
  it('publishes an object and its integrity index, and reads them back verified', async () => {
    const store = new ContentStore(join(await tempDir(), '.content-v1'));
    const ref = await store.write(payload, 'application/json');
    expect(ref).toMatchObject({ bytes: payload.length, mediaType: 'application/json', integrityBlockBytes: 1048576 });
    expect(Object.keys(ref)).toEqual(['digest', 'bytes', 'mediaType', 'indexDigest', 'integrityBlockBytes']);
    expect((await store.read(ref)).equals(payload)).toBe(true);
    const index = await readFile(store.indexPath(ref.digest), 'utf8');
    expect(index.endsWith('\n')).toBe(false);
    expect(JSON.parse(index)).toMatchObject({
      version: 1,
      object: ref.digest,
      bytes: payload.length,
      blockBytes: 1048576,
    });
    expect(JSON.parse(index).blocks).toHaveLength(3);
    // Publishing the same bytes again reuses the object.
    expect(await store.write(payload, 'application/json')).toEqual(ref);
  });

  it('refuses a flipped bit, a missing object and a missing index, naming the file', async () => {
    const store = new ContentStore(join(await tempDir(), '.content-v1'));
    const ref = await store.write(payload);
    const object = store.objectPath(ref.digest);
    const bytes = await readFile(object);
    bytes[1000] = bytes[1000]! ^ 1;
    await rm(object);
    await writeFile(object, bytes);
    const flipped = await store.read(ref).catch((error: unknown) => error);
    // Present but wrong is corrupt, not missing.
    expect(flipped).toBeInstanceOf(CorruptContentError);
    expect(flipped).toMatchObject({
      code: 'RX_CORRUPT_CONTENT',
      message: expect.stringMatching(/content object digest is/),
    });
    await rm(object);
    const missing = await store.read(ref).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MissingContentError);
    expect((missing as MissingContentError).data.file).toBe(object);
    await store.write(payload);
    await rm(store.indexPath(ref.digest));
    await expect(store.read(ref)).rejects.toThrow(/integrity index is missing/);
    // Without an index digest in the ref, no index is needed (docs/format.md §6.3).
    const { indexDigest: _, integrityBlockBytes: __, ...bare } = ref;
    expect((await store.read(bare)).length).toBe(payload.length);
  });

  it('never follows a digest out of the store, nor a symlinked object', async () => {
    expect(PayloadRefSchema.safeParse({ digest: '../../../etc/passwd', bytes: 1 }).success).toBe(false);
    const root = await tempDir();
    const store = new ContentStore(join(root, '.content-v1'));
    await expect(store.read({ digest: '../'.repeat(21) + 'x', bytes: 1 })).rejects.toBeInstanceOf(CorruptContentError);
    const digest = 'ab'.repeat(32);
    await mkdir(join(root, '.content-v1', 'objects', 'ab', 'ab'), { recursive: true });
    await writeFile(join(root, 'outside'), 'secret');
    await symlink(join(root, 'outside'), store.objectPath(digest));
    await expect(store.read({ digest, bytes: 6 })).rejects.toThrow(/not a regular file/);
  });
});
