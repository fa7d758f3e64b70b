import { readdir, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { currentPlatform, type Platform } from './platform.js';
import { unboundedSlug } from './workspace-slug.js';

/**
 * The existing folders whose slug is `slug` (docs/format.md §1.3): the slug is lossy (`/p/a-b` and
 * `/p/a/b` are both `-p-a-b`), so there may be none, one or several. Found by walking from `/` only
 * down names the slug can still continue with; on this machine's platform only (another platform's
 * folders are not here to find), and not for Windows drive paths. A slug cut and hashed for its length
 * names no folder this finds.
 */
export async function foldersOfSlug(slug: string, platform: Platform): Promise<string[]> {
  if (platform === 'win32' || platform !== currentPlatform()) return [];
  const found: string[] = [];
  const walk = async (dir: string, rest: string): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const part = unboundedSlug(name, platform);
      if (rest !== part && !rest.startsWith(`${part}-`)) continue;
      const path = posix.join(dir, name);
      // Followed as Reasonix would follow it: a symlinked folder is a folder to run in.
      if (
        !(await stat(path).then(
          (stats) => stats.isDirectory(),
          () => false,
        ))
      )
        continue;
      if (rest === part) found.push(path);
      else await walk(path, rest.slice(part.length + 1));
    }
  };
  if (slug.startsWith('-') && slug.length > 1) await walk('/', slug.slice(1));
  return found;
}
