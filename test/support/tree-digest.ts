import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A digest of every file under `root` (names and bytes), to show a tree was not changed. */
export async function treeDigest(root: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        hash
          .update(relative(root, path))
          .update('\0')
          .update(await readFile(path))
          .update('\0');
    }
  };
  await walk(root);
  return hash.digest('hex');
}
