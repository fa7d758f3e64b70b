import { readdir, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { currentPlatform, pathsOf, type Platform } from '../store/roots/platform.js';
import { unboundedSlug } from '../store/roots/workspace-slug.js';

/**
 * A workspace folder as Reasonix keys its store by it (docs/format.md §1.2): absolute and cleaned,
 * symlinks kept as given — Reasonix takes `os.Getwd()`, the shell's `$PWD`, and never resolves them.
 */
export function workspaceFolder(path: string, cwd: string, platform: Platform): string {
  return pathsOf(platform).resolve(cwd, path);
}

/** Whether two workspace paths name the same folder as Reasonix compares them: whole paths, on Windows without regard to case. */
export function sameFolder(a: string, b: string, platform: Platform): boolean {
  const paths = pathsOf(platform);
  const [x, y] = [paths.normalize(a), paths.normalize(b)];
  return platform === 'win32'
    ? unboundedSlug(x, platform) === unboundedSlug(y, platform) && x.toLowerCase() === y.toLowerCase()
    : x === y;
}

/**
 * Existing folders other than `folder` whose slug is `folder`'s: the slug is lossy (`/p/a-b` and
 * `/p/a/b` are both `-p-a-b`), so Reasonix run in any of them opens the same store. Found by
 * walking from `/` only down names the slug can still continue with; on this machine's platform
 * only (another platform's folders are not here to find), and not for Windows drive paths.
 */
export async function foldersSharingSlug(folder: string, platform: Platform): Promise<string[]> {
  if (platform === 'win32' || platform !== currentPlatform()) return [];
  const slug = unboundedSlug(folder, platform);
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
  return found.filter((path) => path !== posix.normalize(folder));
}
