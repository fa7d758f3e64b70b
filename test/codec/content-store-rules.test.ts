// Each check the content store makes on a read (spec §6), alone: an object of the wrong size, an
// integrity index that is not the one the ref names, not valid, too large, or describing another
// object; and what a write does when another file already stands at its digest.
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentRootFor, ContentStore, INTEGRITY_BLOCK_BYTES } from '../../src/codec/content-store.js';
import { CorruptContentError } from '../../src/errors/index.js';
import type { PayloadRef } from '../../src/codec/records.js';
import { tempDir } from '../support/temp-dir.js';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const payload = Buffer.from('z'.repeat(INTEGRITY_BLOCK_BYTES + 10));

async function stored() {
  const store = new ContentStore(join(await tempDir('rxstore-content-'), '.content-v1'));
  const ref = await store.write(payload);
  return { store, ref };
}

/** Replaces the index with `index` and returns a ref naming it, so that only its content is wrong. */
async function withIndex(store: ContentStore, ref: PayloadRef, index: string): Promise<PayloadRef> {
  await rm(store.indexPath(ref.digest));
  await writeFile(store.indexPath(ref.digest), index);
  return { ...ref, indexDigest: sha256(index) };
}

const corrupt = async (read: Promise<unknown>) => {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CorruptContentError);
  return error as CorruptContentError;
};

describe('a content read refuses', () => {
  it('an object whose size is not the ref’s, before reading it', async () => {
    const { store, ref } = await stored();
    const error = await corrupt(store.read({ ...ref, bytes: ref.bytes + 1 }));
    expect(error.message).toBe(`content object is ${ref.bytes} bytes, expected ${ref.bytes + 1}`);
    expect(error.data).toMatchObject({ file: store.objectPath(ref.digest), expected: ref.bytes + 1, found: ref.bytes });
  });

  it('a ref whose integrity block size is not 1 MiB', async () => {
    const { store, ref } = await stored();
    const error = await corrupt(store.read({ ...ref, integrityBlockBytes: 4096 }));
    expect(error.message).toBe(`integrity block size 4096, expected ${INTEGRITY_BLOCK_BYTES}`);
    const without = await corrupt(store.read({ ...ref, integrityBlockBytes: undefined }));
    expect(without.message).toBe(`integrity block size 0, expected ${INTEGRITY_BLOCK_BYTES}`);
  });

  it('an index that is not the one the ref names', async () => {
    const { store, ref } = await stored();
    const error = await corrupt(store.read({ ...ref, indexDigest: 'f'.repeat(64) }));
    expect(error.message).toBe(`integrity index digest is ${ref.indexDigest}, expected ${'f'.repeat(64)}`);
    expect(error.data.file).toBe(store.indexPath(ref.digest));
  });

  it('an index that is not JSON, or not of version 1', async () => {
    const { store, ref } = await stored();
    const index = JSON.parse(await readFile(store.indexPath(ref.digest), 'utf8')) as Record<string, unknown>;
    expect((await corrupt(store.read(await withIndex(store, ref, '{not json')))).message).toMatch(
      /^integrity index is not valid: /,
    );
    expect(
      (await corrupt(store.read(await withIndex(store, ref, JSON.stringify({ ...index, version: 2 }))))).message,
    ).toBe('integrity index is not valid: version 2, expected 1');
    expect(
      (await corrupt(store.read(await withIndex(store, ref, JSON.stringify({ ...index, blockBytes: 4096 }))))).message,
    ).toBe(`integrity index is not valid: blockBytes 4096, expected ${INTEGRITY_BLOCK_BYTES}`);
  });

  // Reasonix refuses each of these too (content-index-matches-reasonix); here, what rxstore names.
  it.each([
    {
      what: 'block digests that are numbers',
      index: (index: Record<string, unknown>) => JSON.stringify({ ...index, blocks: [1, 2] }),
      message: /^integrity index is not valid: blocks\.0: Invalid input: expected string, received number$/,
    },
    {
      what: 'a list, not an object',
      index: () => '[]',
      message: /^integrity index is not valid: value: Invalid input: expected object, received array$/,
    },
    {
      what: 'a version written 1.0',
      index: (index: Record<string, unknown>) => JSON.stringify(index).replace('"version":1', '"version":1.0'),
      message: /^integrity index is not valid: version: cannot unmarshal number 1\.0 into Go value of type int64$/,
    },
  ])('an index Go cannot decode into its fields: $what, naming the field', async ({ index, message }) => {
    const { store, ref } = await stored();
    const written = JSON.parse(await readFile(store.indexPath(ref.digest), 'utf8')) as Record<string, unknown>;
    const text = index(written);
    expect(text).not.toBe(JSON.stringify(written));
    const error = await corrupt(store.read(await withIndex(store, ref, text)));
    expect(error.message).toMatch(message);
    expect(error.data.file).toBe(store.indexPath(ref.digest));
  });

  it.each([
    { what: 'another object', change: { object: 'a'.repeat(64) } },
    { what: 'another size', change: { bytes: payload.length - 1 } },
    { what: 'one block too few', change: { blocks: [sha256(payload.subarray(0, INTEGRITY_BLOCK_BYTES))] } },
  ])('an index that describes $what', async ({ change }) => {
    const { store, ref } = await stored();
    const index = JSON.parse(await readFile(store.indexPath(ref.digest), 'utf8')) as Record<string, unknown>;
    const error = await corrupt(store.read(await withIndex(store, ref, JSON.stringify({ ...index, ...change }))));
    expect(error.message).toBe('integrity index does not match the object');
  });

  it('an index whose block digests are others, as many: read, as Reasonix reads it (the object is checked whole)', async () => {
    const { store, ref } = await stored();
    const index = JSON.parse(await readFile(store.indexPath(ref.digest), 'utf8')) as Record<string, unknown>;
    expect(
      await store.read(await withIndex(store, ref, JSON.stringify({ ...index, blocks: [sha256('x'), sha256('y')] }))),
    ).toEqual(payload);
  });

  it('an index padded with spaces to exactly its size bound: read (Go takes white space after the value)', async () => {
    const { store, ref } = await stored();
    const index = await readFile(store.indexPath(ref.digest), 'utf8');
    const bound = 1024 + 2 * 80;
    expect(await store.read(await withIndex(store, ref, index.padEnd(bound, ' ')))).toEqual(payload);
    const error = await corrupt(store.read(await withIndex(store, ref, index.padEnd(bound + 1, ' '))));
    expect(error.message).toBe(`content integrity index is ${bound + 1} bytes, expected at most ${bound}`);
  });

  it('an index far larger than one digest a block, without reading it', async () => {
    const { store, ref } = await stored();
    const error = await corrupt(store.read(await withIndex(store, ref, ' '.repeat(5000))));
    const limit = 1024 + 2 * 80;
    expect(error.message).toBe(`content integrity index is 5000 bytes, expected at most ${limit}`);
    expect(error.data).toMatchObject({ expected: limit, found: 5000 });
  });
});

describe('a content write', () => {
  it("indexes the digest of each 1 MiB block of the object, the last one short, and the index's own digest in the ref", async () => {
    const { store, ref } = await stored();
    const index = await readFile(store.indexPath(ref.digest));
    expect(JSON.parse(index.toString('utf8'))).toEqual({
      version: 1,
      object: sha256(payload),
      bytes: payload.length,
      blockBytes: INTEGRITY_BLOCK_BYTES,
      blocks: [sha256(payload.subarray(0, INTEGRITY_BLOCK_BYTES)), sha256(payload.subarray(INTEGRITY_BLOCK_BYTES))],
    });
    expect(ref).toMatchObject({ digest: sha256(payload), bytes: payload.length, indexDigest: sha256(index) });
  });

  it('of an empty payload: an index without blocks, read back', async () => {
    const store = new ContentStore(join(await tempDir('rxstore-content-'), '.content-v1'));
    const ref = await store.write(Buffer.alloc(0));
    expect(ref).toMatchObject({ digest: sha256(''), bytes: 0 });
    expect(ref).not.toHaveProperty('mediaType');
    expect(JSON.parse(await readFile(store.indexPath(ref.digest), 'utf8'))).toEqual({
      version: 1,
      object: ref.digest,
      bytes: 0,
      blockBytes: INTEGRITY_BLOCK_BYTES,
      blocks: null,
    });
    expect((await store.read(ref)).length).toBe(0);
  });

  it('refuses when a different file already stands at the digest, and leaves it', async () => {
    const { store, ref } = await stored();
    await rm(store.objectPath(ref.digest));
    await writeFile(store.objectPath(ref.digest), 'something else');
    const error = await corrupt(store.write(payload));
    expect(error.message).toBe('a different content file already stands at this digest');
    expect(await readFile(store.objectPath(ref.digest), 'utf8')).toBe('something else');
  });

  it('lays objects and indexes out by the first two and next two hex digits', async () => {
    const { store, ref } = await stored();
    expect(store.objectPath(ref.digest)).toBe(
      join(store.root, 'objects', ref.digest.slice(0, 2), ref.digest.slice(2, 4), ref.digest),
    );
    expect(store.indexPath(ref.digest)).toBe(
      join(store.root, 'indexes', ref.digest.slice(0, 2), ref.digest.slice(2, 4), `${ref.digest}.json`),
    );
    expect(() => store.objectPath('AB'.repeat(32))).toThrow(CorruptContentError);
  });
});

describe('the content root of a session', () => {
  it("is the store's shared one, unless the manifest names the session's own", () => {
    expect(contentRootFor('/s/store/id')).toBe('/s/store/.content-v1');
    expect(contentRootFor('/s/store/id', '.content-v1')).toBe('/s/store/id/.content-v1');
    // Cleaned as Go's filepath.Clean does: the same directory written another way is still the session's own.
    for (const written of ['./.content-v1', '.content-v1/', './.content-v1//', 'x/../.content-v1'])
      expect(contentRootFor('/s/store/id', written), written).toBe('/s/store/id/.content-v1');
    expect(contentRootFor('/s/store/id', '../../elsewhere')).toBe('/s/store/.content-v1');
  });
});
