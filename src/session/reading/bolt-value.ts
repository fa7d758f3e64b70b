import {
  BRANCH,
  BUCKET_HEADER,
  BUCKET_LEAF,
  ELEMENT,
  LEAF,
  PAGE_HEADER,
  newestMeta,
  pageBytes,
} from './bolt-damage.js';

/**
 * The value stored under `key` in the top-level bucket `bucket` of a bbolt database (Reasonix's recovery
 * checkpoint, docs/format.md §9.10), as bbolt would give it; undefined when the bucket or the key is not there.
 * Only a database `boltDamage` finds sound is looked into; a page that does not hold together here
 * gives undefined too, never a value read from elsewhere.
 */
export function boltValue(bytes: Buffer, bucket: string, key: string): Buffer | undefined {
  const meta = newestMeta(bytes);
  if (!meta) return undefined;
  const pageOf = (id: bigint): Buffer | undefined => {
    const page = pageBytes(bytes, meta, id);
    return typeof page === 'string' ? undefined : page;
  };
  const root = pageOf(meta.root);
  const holder = root && find(root, Buffer.from(bucket), pageOf, true);
  if (!holder || holder.length < BUCKET_HEADER) return undefined;
  const bucketRoot = holder.readBigUInt64LE(0);
  // A small bucket keeps its one page inline, after its header.
  const page = bucketRoot === 0n ? holder.subarray(BUCKET_HEADER) : pageOf(bucketRoot);
  return page && find(page, Buffer.from(key), pageOf, false);
}

/** The value of the leaf element named `name` in the tree under `page` (a bucket's, when `bucket`), by bbolt's key order. */
function find(
  page: Buffer,
  name: Buffer,
  pageOf: (id: bigint) => Buffer | undefined,
  bucket: boolean,
): Buffer | undefined {
  // A tree is at most a few levels deep; the bound only stops a page that leads back to itself.
  for (let depth = 0; depth < 64; depth += 1) {
    if (page.length < PAGE_HEADER) return undefined;
    const flags = page.readUInt16LE(8);
    const count = page.readUInt16LE(10);
    if (PAGE_HEADER + count * ELEMENT > page.length) return undefined;
    if (flags === LEAF) {
      for (let index = 0; index < count; index += 1) {
        const element = PAGE_HEADER + index * ELEMENT;
        const keyAt = element + page.readUInt32LE(element + 4);
        const keyEnd = keyAt + page.readUInt32LE(element + 8);
        const valueEnd = keyEnd + page.readUInt32LE(element + 12);
        if (valueEnd > page.length) return undefined;
        if (((page.readUInt32LE(element) & BUCKET_LEAF) !== 0) !== bucket) continue;
        if (page.subarray(keyAt, keyEnd).equals(name)) return page.subarray(keyEnd, valueEnd);
      }
      return undefined;
    }
    if (flags !== BRANCH) return undefined;
    // The last child whose first key is not after the name holds it, as bbolt searches a branch.
    let child: bigint | undefined;
    for (let index = 0; index < count; index += 1) {
      const element = PAGE_HEADER + index * ELEMENT;
      const keyAt = element + page.readUInt32LE(element);
      const keyEnd = keyAt + page.readUInt32LE(element + 4);
      if (keyEnd > page.length) return undefined;
      if (index > 0 && Buffer.compare(page.subarray(keyAt, keyEnd), name) > 0) break;
      child = page.readBigUInt64LE(element + 8);
    }
    const next = child === undefined ? undefined : pageOf(child);
    if (!next) return undefined;
    page = next;
  }
  return undefined;
}
