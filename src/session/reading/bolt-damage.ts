/**
 * Whether a bbolt database file (Reasonix's recovery checkpoint, docs/format.md §9.9) is one bbolt can open
 * and walk, and if not, why. Reasonix opens its checkpoint without a synced freelist, so bbolt walks every
 * page the database reaches when it opens it, and a page that is not what its parent says (another id, a
 * type no page has, past the end of the file) stops Reasonix with a panic or a fault: measured with
 * 1.38.11 (test/recovery-cache-matches-reasonix). Only the structure is read: pages, elements and buckets;
 * nothing of what they hold. An empty file is one bbolt makes a new database of.
 */
export function boltDamage(bytes: Buffer): string | undefined {
  // Stryker disable next-line ConditionalExpression: an empty file has no meta page either: no database, no damage
  if (bytes.length === 0) return undefined;
  // A file with no valid meta page is no database: bbolt refuses to open it, and Reasonix makes a new one.
  const meta = newestMeta(bytes);
  return meta && walk(bytes, meta);
}

export interface BoltMeta {
  pageSize: number;
  root: bigint;
  /** The high-water mark: every page in use is below it. */
  pages: bigint;
  txid: bigint;
}

const MAGIC = 0xed0cdaed;
/** The page size of the machines Reasonix runs on. */
const OS_PAGE = 4096;
const VERSION = 2;
export const PAGE_HEADER = 16;
export const ELEMENT = 16;
export const BUCKET_HEADER = 16;
export const BRANCH = 0x01;
export const LEAF = 0x02;
export const BUCKET_LEAF = 0x01;

/** The valid meta page with the higher transaction id, as bbolt picks it; undefined when neither is valid. */
export function newestMeta(bytes: Buffer): BoltMeta | undefined {
  // The first meta page says how large pages are; the second is one page further (without a valid
  // first one, bbolt looks for it one page of the operating system's size further).
  const first = metaAt(bytes, 0);
  // Stryker disable next-line ConditionalExpression: where the second meta page is looked for when the first is invalid: the page size of every checkpoint is the …
  const second = metaAt(bytes, typeof first === 'string' ? OS_PAGE : first.pageSize);
  const valid = [first, second].filter((meta): meta is BoltMeta => typeof meta === 'object');
  if (valid.length === 0) return undefined;
  const newest = valid.reduce((newest, meta) => (meta.txid > newest.txid ? meta : newest));
  // A file shorter than its two meta pages bbolt refuses to open at all, and Reasonix makes a new one (measured
  // with 1.38.11: a checkpoint cut to 100 to 8,191 bytes of its 4,096-byte pages is rebuilt, the session opened).
  return bytes.length < 2 * newest.pageSize ? undefined : newest;
}

function metaAt(bytes: Buffer, offset: number): BoltMeta | string {
  const at = offset + PAGE_HEADER;
  if (bytes.length < at + 64) return 'the file ends inside a meta page';
  if (bytes.readUInt32LE(at) !== MAGIC) return 'no bbolt magic';
  if (bytes.readUInt32LE(at + 4) !== VERSION) return `version ${bytes.readUInt32LE(at + 4)}, expected ${VERSION}`;
  if (bytes.readBigUInt64LE(at + 56) !== fnv1a64(bytes.subarray(at, at + 56))) return 'checksum does not match';
  const pageSize = bytes.readUInt32LE(at + 8);
  if (pageSize < 1024 || (pageSize & (pageSize - 1)) !== 0) return `page size ${pageSize}`;
  return {
    pageSize,
    root: bytes.readBigUInt64LE(at + 16),
    pages: bytes.readBigUInt64LE(at + 40),
    txid: bytes.readBigUInt64LE(at + 48),
  };
}

/** Every page reachable from the root bucket, each checked as bbolt checks a page it reads. */
function walk(bytes: Buffer, meta: BoltMeta): string | undefined {
  const seen = new Set<bigint>();
  const stack: bigint[] = [meta.root];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) return `page ${id} is reached twice`;
    seen.add(id);
    const page = pageBytes(bytes, meta, id);
    if (typeof page === 'string') return page;
    const found = page.readBigUInt64LE(0);
    if (found !== id) return `page ${id} identifies itself as ${found}`;
    const problem = readPage(page, id, stack);
    if (problem) return problem;
  }
  return undefined;
}

/** Page `id` with its overflow pages, as bbolt reads it; what keeps it from being one, in words. */
export function pageBytes(bytes: Buffer, meta: BoltMeta, id: bigint): Buffer | string {
  if (id < 2n || id >= meta.pages) return `page ${id} is outside the database's ${meta.pages} pages`;
  const start = Number(id) * meta.pageSize;
  if (start + meta.pageSize > bytes.length) return `page ${id} is past the end of the file (${bytes.length} bytes)`;
  const end = start + (1 + bytes.readUInt32LE(start + 12)) * meta.pageSize;
  if (end > bytes.length) return `page ${id} and its overflow go past the end of the file`;
  return bytes.subarray(start, end);
}

/** Checks one page's elements, and queues the pages they point to. */
function readPage(page: Buffer, id: bigint | string, stack: bigint[]): string | undefined {
  const flags = page.readUInt16LE(8);
  const count = page.readUInt16LE(10);
  if (flags !== BRANCH && flags !== LEAF)
    return `page ${id} has flags 0x${flags.toString(16)}, neither a branch nor a leaf`;
  if (PAGE_HEADER + count * ELEMENT > page.length) return `page ${id} holds more elements than fit in it`;
  for (let index = 0; index < count; index += 1) {
    const element = PAGE_HEADER + index * ELEMENT;
    if (flags === BRANCH) {
      const keyEnd = element + page.readUInt32LE(element) + page.readUInt32LE(element + 4);
      if (keyEnd > page.length) return `page ${id}: element ${index} goes past the page`;
      stack.push(page.readBigUInt64LE(element + 8));
      continue;
    }
    const valueAt = element + page.readUInt32LE(element + 4) + page.readUInt32LE(element + 8);
    const valueEnd = valueAt + page.readUInt32LE(element + 12);
    if (valueEnd > page.length) return `page ${id}: element ${index} goes past the page`;
    if ((page.readUInt32LE(element) & BUCKET_LEAF) === 0) continue;
    // A bucket: its root page, or (root 0) a page of its own inline after its header.
    if (valueEnd - valueAt < BUCKET_HEADER) return `page ${id}: bucket ${index} is shorter than its header`;
    const root = page.readBigUInt64LE(valueAt);
    if (root !== 0n) stack.push(root);
    else {
      const inline = page.subarray(valueAt + BUCKET_HEADER, valueEnd);
      if (inline.length < PAGE_HEADER) return `page ${id}: bucket ${index} has no inline page`;
      const problem = readPage(inline, `${id} (bucket ${index} inline)`, stack);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** FNV-1a, 64 bits: bbolt's checksum of a meta page. */
function fnv1a64(bytes: Buffer): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash;
}
