import type { Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { OverwriteRefusedError, undefinedIfMissing } from '../errors/index.js';
import { checkFile, checkOutside, type ReadPaths } from '../fs/path-kind.js';

/**
 * The marks a renderer's pages carry near their start, so that a later run knows a file for its own
 * and writes it again; a file with neither is someone else's.
 */
export interface GeneratorMarks {
  /** In an HTML page's head. */
  html: string;
  /** The first line of a Markdown file. */
  markdown: string;
}

/** Both marks stand in the first bytes of a page: the head's fourth line, or the first line. */
const MARK_WITHIN_BYTES = 512;

/** What stands at a path, not following a symlink: nothing (undefined) or its stats. */
export async function entryAt(path: string): Promise<Stats | undefined> {
  return lstat(path).catch((error: unknown) => undefinedIfMissing(error, path));
}

/** Whether the regular file at `path` (never followed through a symlink) carries a generator mark. */
export async function carriesGeneratorMark(path: string, marks: GeneratorMarks): Promise<boolean> {
  const entry = await entryAt(path);
  if (!entry?.isFile()) return false;
  const handle = await open(path, 'r');
  try {
    const start = Buffer.alloc(MARK_WITHIN_BYTES);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    const text = start.subarray(0, bytesRead).toString('utf8');
    return text.startsWith(marks.markdown) || text.includes(marks.html);
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a page file rxstore may not write to: a folder (`given` ending in a slash, or a folder
 * there), anything but a regular file (a symbolic link, a FIFO, a device: never, whatever `force`
 * says), a path in a folder that is not there, or one inside the session the page is of (`reading`),
 * are the wrong kind of path; a file it did not write (no generator mark) is someone else's, written
 * over only with `force`. `given` is the path as the user gave it.
 */
export async function checkPageFile(
  path: string,
  given: string,
  options: { force: boolean; reading: ReadPaths; marks: GeneratorMarks },
): Promise<void> {
  const entry = await checkFile(path, given);
  await checkOutside(path, given, 'file', options.reading);
  if (!entry || options.force || (await carriesGeneratorMark(path, options.marks))) return;
  throw new OverwriteRefusedError(
    `${given}: a file rxstore did not write (it has no generator mark); --force writes over it`,
    { file: given },
  );
}
