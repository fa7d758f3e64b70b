import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * A digest of every file under `root` (names and bytes), to show a tree was not changed; `skip` leaves out the
 * files (by path relative to `root`) a check allows to differ.
 */
export async function treeDigest(root: string, skip: (path: string) => boolean = () => false): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (!skip(relative(root, path)))
        hash
          .update(relative(root, path))
          .update('\0')
          // A FIFO or socket planted in the tree is named, never opened (its open would wait for a writer).
          .update(entry.isFIFO() || entry.isSocket() ? '<fifo or socket>' : await readFile(path))
          .update('\0');
    }
  };
  await walk(root);
  return hash.digest('hex');
}
