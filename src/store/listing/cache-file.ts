import { dirname } from 'node:path';
import * as z from 'zod';
import { NotRegularFileError } from '../../errors/index.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { makeCacheFolder, refusedWriteIn } from '../../fs/cache-folder.js';
import { notOurs } from '../../fs/not-ours.js';
import { readRegularFile } from '../../fs/read-regular-file.js';

/**
 * Far above the cache of any machine's sessions (an entry is under a kilobyte: 64 MiB is some
 * hundred thousand sessions); a larger file (or /dev/zero) is read as no cache. Parsing JSON costs
 * many times its size in memory, so the bound is what a planted file can cost a listing.
 */
export const MAX_CACHE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * One JSON file of rxstore's cache folder: entries by path, of a format `version`, read when first
 * needed and replaced atomically (temp file and rename: a reader sees one whole file). A cache is
 * only ever a shortcut: a file that cannot be read, is not JSON or is of another version is no
 * entries at all. What is set or removed before the file is read wins over what it holds.
 */
export class CacheFile {
  /** `undefined` marks an entry removed. */
  private readonly entries = new Map<string, unknown>();
  private loaded: Promise<void> | undefined;
  private changed = false;

  constructor(
    readonly file: string,
    private readonly version: number,
    private readonly entrySchema: z.ZodType,
  ) {}

  /** Reads the file, once; entries set or removed meanwhile stay as they were set. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      // Only a file rxstore can have made is read (`notOurs`), opened without waiting: a FIFO is no cache, never
      // a wait. One the system will not show is no cache either, and the save says why.
      let planted: string | undefined;
      try {
        planted = notOurs(this.file);
      } catch {
        return;
      }
      if (planted !== undefined) return;
      const text = readRegularFile(this.file, MAX_CACHE_FILE_BYTES)?.toString('utf8');
      const parsed = z
        .object({ version: z.literal(this.version), entries: z.record(z.string(), z.unknown()) })
        .safeParse(parseJson(text));
      if (!parsed.success) return;
      for (const [path, value] of Object.entries(parsed.data.entries)) {
        if (this.entries.has(path)) continue;
        // An entry of another shape (a planted file's junk) is dropped, and the file rewritten without
        // it: kept, it would cost every later listing its memory and time again.
        if (this.entrySchema.safeParse(value).success) this.entries.set(path, value);
        else this.changed = true;
      }
    })();
    return this.loaded;
  }

  /** The entry kept for `path` (after `load`). */
  get(path: string): unknown {
    return this.entries.get(path);
  }

  set(path: string, value: unknown): void {
    this.entries.set(path, value);
    this.changed = true;
  }

  delete(path: string): void {
    this.entries.set(path, undefined);
    this.changed = true;
  }

  /**
   * Writes the file if anything changed, with the entries it held that were not changed. What stands at the
   * name is written over only when rxstore can have made it (`notOurs`): anything else is left as it is, the
   * cache not saved, and refused (`NotRegularFileError`) whether anything changed or not, so that it is said
   * on every run it costs.
   */
  async save(): Promise<void> {
    // What stands in the way of the folder (a file, a loop of links) first: said once, for every file of it.
    makeCacheFolder(dirname(this.file), 'the cache');
    const planted = notOurs(this.file);
    if (planted !== undefined)
      throw new NotRegularFileError(
        `${this.file} is ${planted}, not a cache file rxstore made; it is left as it is: remove it to have the cache kept`,
        { file: this.file },
      );
    if (!this.changed) return;
    await this.load();
    const kept = Object.fromEntries([...this.entries].filter(([, value]) => value !== undefined));
    await writeFileAtomic(this.file, JSON.stringify({ version: this.version, entries: kept })).catch(
      (error: unknown) => {
        throw refusedWriteIn(error, this.file);
      },
    );
    this.changed = false;
  }
}

/** A cache file's JSON; anything that is not JSON is no cache at all. */
function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's SyntaxError, its only error.
    return undefined;
  }
}
