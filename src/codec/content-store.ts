import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { constants } from 'node:buffer';
import { link, open, rm, rmdir } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import * as z from 'zod';
import { DIR_MODE, fsyncDir, writeNewFile } from '../fs/atomic-write.js';
import {
  CorruptContentError,
  FileSystemError,
  isSystemError,
  MissingContentError,
  systemErrorInWords,
  TooLargeError,
} from '../errors/index.js';
import type { PayloadRef } from './records.js';
import { goInt, goSlice, goString, goStruct } from './go-json/go-decode.js';
import { failPoint } from '../fs/fail-point.js';
import { parseGoJson } from './go-json/go-text.js';
import { goLiteralFieldsOf, goLiteralRefusalOfBytes } from './go-json/go-literals.js';
import { firstIssue } from './first-issue.js';
import { makeFolders } from '../fs/make-folders.js';

/** Objects are indexed in 1 MiB blocks; an index with any other block size is refused (docs/format.md §6.1). */
export const INTEGRITY_BLOCK_BYTES = 1024 * 1024;
export const CONTENT_DIR = '.content-v1';

/**
 * An integrity index as Reasonix 1.38.11 reads it: a Go struct (keys in any case, `null` as the zero value)
 * whose version, object, size, block size and number of blocks it checks, not the block digests
 * themselves: the object's own SHA-256 is checked whole (docs/format.md §6.1).
 */
const IntegrityIndexSchema = goStruct(
  {
    version: goInt,
    object: goString,
    bytes: goInt,
    blockBytes: goInt,
    blocks: goSlice(goString),
  },
  'drop',
);

/** Its integer fields, which Go refuses written as `1.0` or `1e0`. */
const INDEX_LITERALS = goLiteralFieldsOf(IntegrityIndexSchema);

const DIGEST = /^[0-9a-f]{64}$/;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Objects up to this size are read whole and hashed; a larger one is hashed a block at a time first. */
const WHOLE_READ_BYTES = 16 * 1024 * 1024;
/** The largest object rxstore reads: a payload is decoded to a string, and V8 holds none longer. */
const MAX_OBJECT_BYTES = constants.MAX_STRING_LENGTH;

/** SHA-256 of a file's first `size` bytes, read 1 MiB at a time into one buffer. */
function hashInBlocks(fd: number, size: number): string {
  const hash = createHash('sha256');
  const block = Buffer.allocUnsafe(INTEGRITY_BLOCK_BYTES);
  for (let at = 0; at < size; ) {
    const read = readSync(fd, block, 0, Math.min(block.length, size - at), at);
    if (read === 0) break;
    hash.update(block.subarray(0, read));
    at += read;
  }
  return hash.digest('hex');
}

function checkDigest(file: string, what: string, expected: string, found: string): void {
  if (found !== expected)
    throw new CorruptContentError(`content ${what} digest is ${found}, expected ${expected}`, {
      file,
      expected,
      found,
    });
}

/**
 * The root of the content store a session uses (docs/format.md §6.2): only `../.content-v1` (shared by the
 * store) and `.content-v1` (inside an exported session) are honoured; anything else falls back
 * to the shared one, as Reasonix does. The path is cleaned first, as Go's `filepath.Clean` does:
 * `./.content-v1` and `.content-v1/` are the session's own store.
 */
export function contentRootFor(sessionDir: string, manifestContentRoot?: string): string {
  const cleaned = manifestContentRoot ? posix.normalize(manifestContentRoot).replace(/(.)\/+$/, '$1') : '';
  const relative = cleaned === CONTENT_DIR ? CONTENT_DIR : join('..', CONTENT_DIR);
  return join(sessionDir, relative);
}

/** A `.content-v1` directory: content-addressed payloads, verified on every read (docs/format.md §6). */
export class ContentStore {
  /** Folders of the store checked to be no link, each once. */
  private readonly unlinkedFolders = new Set<string>();

  constructor(readonly root: string) {}

  objectPath(digest: string): string {
    return join(this.root, 'objects', ...shard(digest), digest);
  }

  indexPath(digest: string): string {
    return join(this.root, 'indexes', ...shard(digest), `${digest}.json`);
  }

  /** The files `read` takes for a ref: its object, and its integrity index when the ref names one. A read of them holds while they do. */
  filesOf(ref: PayloadRef): string[] {
    // The index is filed under the object's digest; `indexDigest` is the digest of its bytes.
    return ref.indexDigest === undefined
      ? [this.objectPath(ref.digest)]
      : [this.objectPath(ref.digest), this.indexPath(ref.digest)];
  }

  /** The bytes a ref names, after checking size, digest and (when the ref has one) the integrity index. */
  async read(ref: PayloadRef): Promise<Buffer> {
    const path = this.objectPath(ref.digest);
    const bytes = this.readRegularFile(path, 'object', ref.bytes, 'exactly', ref.digest);
    if (ref.indexDigest !== undefined) this.verifyIndex(ref);
    return bytes;
  }

  /**
   * Publishes `bytes` as Reasonix does (docs/format.md §6.3): temp file in `.tmp`, fsync, hard link to the
   * object path; an object already there with the same digest is verified and reused. Writes the
   * integrity index the same way and returns the ref an event stores.
   */
  async write(bytes: Uint8Array, mediaType?: string): Promise<PayloadRef> {
    const digest = sha256(bytes);
    await this.publish(this.objectPath(digest), bytes);
    const index = Buffer.from(JSON.stringify(buildIndex(digest, bytes)));
    await this.publish(this.indexPath(digest), index);
    return {
      digest,
      bytes: bytes.length,
      ...(mediaType ? { mediaType } : {}),
      indexDigest: sha256(index),
      integrityBlockBytes: INTEGRITY_BLOCK_BYTES,
    };
  }

  private verifyIndex(ref: PayloadRef): void {
    const path = this.indexPath(ref.digest);
    if (ref.integrityBlockBytes !== INTEGRITY_BLOCK_BYTES) {
      throw new CorruptContentError(
        `integrity block size ${ref.integrityBlockBytes ?? 0}, expected ${INTEGRITY_BLOCK_BYTES}`,
        {
          file: path,
          expected: INTEGRITY_BLOCK_BYTES,
          found: ref.integrityBlockBytes ?? 0,
        },
      );
    }
    // An index holds one 64-hex digest per 1 MiB block; a file far larger is not one.
    const raw = this.readRegularFile(
      path,
      'integrity index',
      1024 + Math.ceil(ref.bytes / INTEGRITY_BLOCK_BYTES) * 80,
      'at most',
    );
    const digest = sha256(raw);
    if (digest !== ref.indexDigest) {
      throw new CorruptContentError(`integrity index digest is ${digest}, expected ${ref.indexDigest}`, {
        file: path,
        expected: ref.indexDigest,
        found: digest,
      });
    }
    let parsed: z.infer<typeof IntegrityIndexSchema>;
    try {
      const result = IntegrityIndexSchema.safeParse(parseGoJson(raw));
      if (!result.success) {
        throw new Error(firstIssue(result.error));
      }
      const written = goLiteralRefusalOfBytes(raw, INDEX_LITERALS);
      if (written) throw new Error(written);
      parsed = result.data;
    } catch (error) {
      throw new CorruptContentError(`integrity index is not valid: ${(error as Error).message}`, { file: path });
    }
    const invalid = (field: string, expected: number, found: number) =>
      new CorruptContentError(`integrity index is not valid: ${field} ${found}, expected ${expected}`, {
        file: path,
        expected,
        found,
      });
    if (parsed.version !== 1) throw invalid('version', 1, parsed.version ?? 0);
    if (parsed.blockBytes !== INTEGRITY_BLOCK_BYTES)
      throw invalid('blockBytes', INTEGRITY_BLOCK_BYTES, parsed.blockBytes ?? 0);
    if (
      parsed.object !== ref.digest ||
      parsed.bytes !== ref.bytes ||
      (parsed.blocks?.length ?? 0) !== Math.ceil(ref.bytes / INTEGRITY_BLOCK_BYTES)
    ) {
      throw new CorruptContentError('integrity index does not match the object', { file: path, expected: ref.digest });
    }
  }

  /**
   * Reads a store file, refusing anything but a regular file reached through folders that are no
   * links (nothing leads a read out of the store) and checking its size before reading it, so a
   * wrong file is never read whole; with `digest`, checks the bytes' SHA-256 too. A large file is
   * hashed a block at a time before it is read whole: memory holds only an object whose digest
   * holds, and none larger than a string can be (a payload is decoded to one). Synchronously: each asynchronous call is a round trip
   * through libuv's thread pool, and the ten or so per payloadRef were measured at 7 % of reading a
   * 100 MiB session; one object is read in well under a millisecond.
   */
  private readRegularFile(
    path: string,
    what: string,
    size: number,
    rule: 'exactly' | 'at most' = 'exactly',
    digest?: string,
  ): Buffer {
    this.refuseLinkedFolders(path);
    let fd: number;
    try {
      // No link followed, and no wait on a FIFO standing where a file belongs.
      fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new MissingContentError(`content ${what} is missing`, { file: path });
      if (code === 'ELOOP') throw new CorruptContentError(`content ${what} is not a regular file`, { file: path });
      throw new CorruptContentError(
        `content ${what} cannot be read: ${systemErrorInWords(error as NodeJS.ErrnoException)}`,
        { file: path },
      );
    }
    try {
      return this.readOpenFile(fd, path, what, size, rule, digest);
    } catch (error) {
      // A read the disk fails is the machine's, named by the file (a descriptor's error names none).
      throw isSystemError(error) ? new FileSystemError(error, path) : error;
    } finally {
      closeSync(fd);
    }
  }

  private readOpenFile(
    fd: number,
    path: string,
    what: string,
    size: number,
    rule: 'exactly' | 'at most',
    digest: string | undefined,
  ): Buffer {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new CorruptContentError(`content ${what} is not a regular file`, { file: path });
    if (rule === 'exactly' ? stats.size !== size : stats.size > size) {
      throw new CorruptContentError(
        `content ${what} is ${stats.size} bytes, expected ${rule === 'exactly' ? '' : 'at most '}${size}`,
        { file: path, expected: size, found: stats.size },
      );
    }
    // Never read, so never hashed: seconds a gigabyte to learn nothing rxstore could use.
    if (stats.size > MAX_OBJECT_BYTES) {
      throw new TooLargeError(
        `content ${what} is ${stats.size} bytes, more than rxstore reads into memory (${MAX_OBJECT_BYTES})`,
        { file: path, found: stats.size, expected: MAX_OBJECT_BYTES },
      );
    }
    if (digest !== undefined && stats.size > WHOLE_READ_BYTES)
      checkDigest(path, what, digest, hashInBlocks(fd, stats.size));
    const bytes = readFileSync(fd);
    if (bytes.length !== stats.size)
      throw new CorruptContentError(`content ${what} changed while it was read`, {
        file: path,
        expected: stats.size,
        found: bytes.length,
      });
    if (digest !== undefined && stats.size <= WHOLE_READ_BYTES) checkDigest(path, what, digest, sha256(bytes));
    return bytes;
  }

  /**
   * Refuses a link among the store's folders above a file (`objects`, `indexes`, the two shards): a read never
   * leaves the store through one. The store's own folder (`.content-v1`) may be a link to a folder, as Reasonix
   * 1.38.11 follows it (measured: test/reasonix/reads/content-root-link-matches-reasonix); below it, it does not.
   */
  private refuseLinkedFolders(path: string): void {
    const folders: string[] = [];
    for (let folder = dirname(path); folder.length >= this.root.length; folder = dirname(folder)) {
      if (this.unlinkedFolders.has(folder)) break;
      folders.push(folder);
      if (folder === this.root) break;
    }
    for (const folder of folders.reverse()) {
      let stats;
      try {
        stats = lstatSync(folder);
      } catch {
        // A folder that is not there holds no file: opening the file says it is missing.
        return;
      }
      if (stats.isSymbolicLink() && folder !== this.root)
        throw new CorruptContentError(
          `content store folder is a symlink, which rxstore does not follow out of the store`,
          { file: folder },
        );
      this.unlinkedFolders.add(folder);
    }
  }

  private async publish(path: string, bytes: Uint8Array): Promise<void> {
    if (await standsAlready(path, bytes)) return;
    const tmpDir = join(this.root, '.tmp');
    await this.makeFolder(tmpDir);
    await this.makeFolder(dirname(path));
    const temp = join(tmpDir, `content-${randomBytes(8).toString('hex')}.tmp`);
    try {
      // A failed write names the object it was to be, never the temporary name.
      await writeNewFile(temp, bytes, path);
      // Another writer may publish the same digest first: content-addressed, so it is ours too.
      const linked = await link(temp, path).then(
        () => true,
        async (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST' || !(await standsAlready(path, bytes))) throw error;
          return false;
        },
      );
      if (linked) madeBy(this).files.push(path);
      failPoint('content.linked');
    } finally {
      await rm(temp, { force: true });
    }
    failPoint('content.temp-removed');
    await fsyncDir(dirname(path));
  }

  /** `mkdir -p`, keeping the folders it made, outermost first. */
  private async makeFolder(dir: string): Promise<void> {
    const first = makeFolders(dir, DIR_MODE);
    if (first === undefined) return;
    const folders: string[] = [];
    for (let each = resolve(dir); ; each = dirname(each)) {
      folders.unshift(each);
      if (each === resolve(first) || dirname(each) === each) break;
    }
    madeBy(this).dirs.push(...folders);
  }
}

/** What each store instance made: objects and indexes it published (not those it found there), and the folders it made for them. */
const made = new WeakMap<ContentStore, { files: string[]; dirs: string[] }>();

function madeBy(store: ContentStore): { files: string[]; dirs: string[] } {
  let found = made.get(store);
  if (!found) made.set(store, (found = { files: [], dirs: [] }));
  return found;
}

/**
 * Removes what `store` published, for a writer whose run failed before anything it wrote refers to
 * it (a session never published): the objects and indexes that were not there before (one found
 * there, or published by another writer first, is left), then the folders made for them once they
 * are empty. Another writer that reused such an object in between would lose it: a window of a
 * failed run's last moments, where leaving every object would leave orphans for good.
 */
export async function discardPublished(store: ContentStore): Promise<void> {
  const { files, dirs } = madeBy(store);
  // Whatever cannot be removed stays: the write's own error is the one to tell.
  for (const file of files.splice(0).reverse()) await rm(file, { force: true }).catch(() => undefined);
  for (const dir of dirs.splice(0).reverse()) await rmdir(dir).catch(() => undefined);
}

/** True when `path` already holds exactly `bytes`; a different file there is a conflict. */
async function standsAlready(path: string, bytes: Uint8Array): Promise<boolean> {
  // Opened without waiting and read only when it is a regular file of the object's length: a FIFO or
  // a device standing at the digest must not hang a write or be read without end.
  const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (handle === undefined) return false;
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new CorruptContentError('something that is not a file (a FIFO, a device, a folder) stands at this digest', {
        file: path,
      });
    const current = stats.size === bytes.length ? await handle.readFile() : undefined;
    if (!current?.equals(bytes))
      throw new CorruptContentError('a different content file already stands at this digest', { file: path });
    return true;
  } finally {
    await handle.close();
  }
}

function shard(digest: string): [string, string] {
  // The schema checks refs read from a log; this guards refs built by callers of the library.
  if (!DIGEST.test(digest))
    throw new CorruptContentError(`content digest ${JSON.stringify(digest)} is not 64 lower-case hex digits`, {});
  return [digest.slice(0, 2), digest.slice(2, 4)];
}

function buildIndex(digest: string, bytes: Uint8Array) {
  const blocks: string[] = [];
  for (let start = 0; start < bytes.length; start += INTEGRITY_BLOCK_BYTES) {
    blocks.push(sha256(bytes.subarray(start, start + INTEGRITY_BLOCK_BYTES)));
  }
  return {
    version: 1,
    object: digest,
    bytes: bytes.length,
    blockBytes: INTEGRITY_BLOCK_BYTES,
    blocks: blocks.length > 0 ? blocks : null,
  };
}
