import { OverwriteRefusedError } from '../index.js';
import type { Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { undefinedIfMissing } from '../errors/index.js';
import { checkFile } from '../fs/path-kind.js';

/**
 * The mark every page rxstore writes carries near its start, so that a later run knows the file
 * for its own and writes it again; a file without it is someone else's. In an HTML page's head:
 */
export const HTML_GENERATOR_MARK = '<meta name="generator" content="rxstore">';
/** The first line of a Markdown file rxstore writes (an HTML comment: nothing shows where it is rendered). */
export const MARKDOWN_GENERATOR_MARK = '<!-- generator: rxstore -->\n';

/** Both marks stand in the first bytes of a page: the head's fourth line, or the first line. */
const MARK_WITHIN_BYTES = 512;

/** What stands at a path, not following a symlink: nothing (undefined) or its stats. */
export async function entryAt(path: string): Promise<Stats | undefined> {
  return lstat(path).catch((error: unknown) => undefinedIfMissing(error, path));
}

/** Whether the regular file at `path` (never followed through a symlink) carries rxstore's generator mark. */
export async function carriesGeneratorMark(path: string): Promise<boolean> {
  const entry = await entryAt(path);
  if (!entry?.isFile()) return false;
  const handle = await open(path, 'r');
  try {
    const start = Buffer.alloc(MARK_WITHIN_BYTES);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    const text = start.subarray(0, bytesRead).toString('utf8');
    return text.startsWith(MARKDOWN_GENERATOR_MARK) || text.includes(HTML_GENERATOR_MARK);
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a page file rxstore may not write to: a folder (`given` ending in a slash, or a folder
 * there) is the wrong kind of path; a file or symlink it did not write (no generator mark) is
 * someone else's, written over only with `force`. `given` is the path as the user gave it.
 */
export async function checkPageFile(path: string, given: string, force: boolean): Promise<void> {
  await checkFile(path, given);
  const entry = await entryAt(path);
  if (!entry || force || (await carriesGeneratorMark(path))) return;
  const what = entry.isSymbolicLink() ? 'a symlink' : entry.isFile() ? 'a file' : 'something';
  throw new OverwriteRefusedError(`${given}: ${what} rxstore did not write (it has no generator mark); --force writes over it`, { file: given });
}
