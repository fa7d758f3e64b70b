// Each way a content object or its integrity index can be wrong gives a coded error naming the
// file and, where there is one, what was expected and what was found (what `--json` shows).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ContentStore,
  CorruptContentError,
  INTEGRITY_BLOCK_BYTES,
  MissingContentError,
  type PayloadRef,
} from '../../src/codec/index.js';
import { tempDir } from '../support/temp-dir.js';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

async function storeWith(bytes: Buffer) {
  const store = new ContentStore(join(await tempDir('rxstore-content-'), '.content-v1'));
  const ref = await store.write(bytes, 'application/json');
  return { store, ref, object: store.objectPath(ref.digest), index: store.indexPath(ref.digest) };
}

const refusal = async (read: Promise<unknown>) => {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CorruptContentError);
  return error as CorruptContentError;
};

const payload = Buffer.from('{"title":"content"}');

describe('the content store refuses', () => {
  it('an object whose bytes are not its digest', async () => {
    const { store, ref, object } = await storeWith(payload);
    const other = Buffer.from('{"title":"CONTENT"}');
    await writeFile(object, other);
    const error = await refusal(store.read(ref));
    expect(error.message).toBe(`content object digest is ${sha256(other)}, expected ${ref.digest}`);
    expect(error.data).toEqual({ file: object, expected: ref.digest, found: sha256(other) });
  });

  it('an object of another size, before reading it', async () => {
    const { store, ref, object } = await storeWith(payload);
    await writeFile(object, Buffer.concat([payload, Buffer.from(' ')]));
    const error = await refusal(store.read(ref));
    expect(error.message).toBe(`content object is ${payload.length + 1} bytes, expected ${payload.length}`);
    expect(error.data).toEqual({ file: object, expected: payload.length, found: payload.length + 1 });
  });

  it('a missing object as missing, and one under a path that is not a folder as unreadable', async () => {
    const { store, ref, object } = await storeWith(payload);
    await rm(object);
    const missing = await store.read(ref).catch((thrown: unknown) => thrown);
    expect(missing).toBeInstanceOf(MissingContentError);
    expect((missing as MissingContentError).message).toBe('content object is missing');
    expect((missing as MissingContentError).data).toEqual({ file: object });
    // The shard folder is a file: not missing, but unreadable.
    await rm(dirname(object), { recursive: true });
    await writeFile(dirname(object), 'not a folder');
    const error = await refusal(store.read(ref));
    expect(error).not.toBeInstanceOf(MissingContentError);
    expect(error.message).toBe('content object cannot be read: not a directory');
    expect(error.data).toEqual({ file: object });
  });

  it('an object that is a folder', async () => {
    const { store, ref, object } = await storeWith(payload);
    await rm(object);
    await mkdir(object);
    const error = await refusal(store.read(ref));
    expect(error.message).toBe('content object is not a regular file');
    expect(error.data).toEqual({ file: object });
  });

  it.each([
    { what: 'another block size', ref: (ref: PayloadRef) => ({ ...ref, integrityBlockBytes: 4096 }), found: 4096 },
    { what: 'no block size', ref: ({ integrityBlockBytes: _, ...ref }: PayloadRef) => ref, found: 0 },
  ])('a ref with an index and $what', async ({ ref: change, found }) => {
    const { store, ref, index } = await storeWith(payload);
    const error = await refusal(store.read(change(ref)));
    expect(error.message).toBe(`integrity block size ${found}, expected ${INTEGRITY_BLOCK_BYTES}`);
    expect(error.data).toEqual({ file: index, expected: INTEGRITY_BLOCK_BYTES, found });
  });

  it('an index far larger than one for the object, before reading it', async () => {
    const { store, ref, index } = await storeWith(payload);
    const limit = 1024 + 80;
    await writeFile(index, Buffer.alloc(limit + 1, 0x20));
    const error = await refusal(store.read(ref));
    expect(error.message).toBe(`content integrity index is ${limit + 1} bytes, expected at most ${limit}`);
    expect(error.data).toEqual({ file: index, expected: limit, found: limit + 1 });
  });

  it.each([
    { what: 'an index', text: '{"version":2}', says: /^integrity index is not valid: \S/ },
    { what: 'JSON', text: '{"version":', says: /^integrity index is not valid: [^\n]{10,}$/ },
  ])('an index that is not $what, though its digest is the ref’s', async ({ text, says }) => {
    const { store, ref, index } = await storeWith(payload);
    await writeFile(index, text);
    const error = await refusal(store.read({ ...ref, indexDigest: sha256(text) }));
    expect(error.message).toMatch(says);
    expect(error.data).toMatchObject({ file: index });
  });

  it('an index of another object, though its digest is the ref’s; its block digests are not compared, as Reasonix does not', async () => {
    const { store, ref, index } = await storeWith(payload);
    const other = JSON.stringify({
      version: 1,
      object: sha256('other'),
      bytes: ref.bytes,
      blockBytes: INTEGRITY_BLOCK_BYTES,
      blocks: [sha256('other')],
    });
    await writeFile(index, other);
    const error = await refusal(store.read({ ...ref, indexDigest: sha256(other) }));
    expect(error.message).toBe('integrity index does not match the object');
    expect(error.data).toEqual({ file: index, expected: ref.digest });
    const otherBlock = JSON.stringify({
      version: 1,
      object: ref.digest,
      bytes: ref.bytes,
      blockBytes: INTEGRITY_BLOCK_BYTES,
      blocks: [sha256('other')],
    });
    await writeFile(index, otherBlock);
    expect(await store.read({ ...ref, indexDigest: sha256(otherBlock) })).toEqual(payload);
  });

  it.each(['A'.repeat(64), `${'a'.repeat(64)}0`, `0${'a'.repeat(64)}`, 'a'.repeat(63), '../../etc/passwd'])(
    'a digest that is not 64 lower-case hex digits: %j',
    async (digest) => {
      const { store } = await storeWith(payload);
      expect(() => store.objectPath(digest)).toThrow(
        new CorruptContentError(`content digest ${JSON.stringify(digest)} is not 64 lower-case hex digits`, {}),
      );
    },
  );
});

describe('the content store publishes', () => {
  it('through .tmp, leaving no temporary file, and reuses an object that stands already', async () => {
    const { store, ref } = await storeWith(payload);
    expect(await store.write(payload, 'application/json')).toEqual(ref);
    expect((await readdir(store.root)).sort()).toEqual(['.tmp', 'indexes', 'objects']);
    expect(await readdir(join(store.root, '.tmp'))).toEqual([]);
    expect(await store.read(ref)).toEqual(payload);
  });

  it('never over a FIFO standing at the digest, which is refused, never waited on', async () => {
    const { store, object } = await storeWith(payload);
    await rm(object);
    execFileSync('mkfifo', [object]);
    const error = await refusal(store.write(payload));
    expect(error).toMatchObject({ code: 'RX_CORRUPT_CONTENT', data: { file: object } });
    expect(error.message).toBe('something that is not a file (a FIFO, a device, a folder) stands at this digest');
  });

  it('never over a different file standing at the digest', async () => {
    const { store, ref, object } = await storeWith(payload);
    await writeFile(object, 'something else');
    const error = await refusal(store.write(payload));
    expect(error.message).toBe('a different content file already stands at this digest');
    expect(error.data).toEqual({ file: object });
    expect(ref.mediaType).toBe('application/json');
  });
});
