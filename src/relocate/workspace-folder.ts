import { posix } from 'node:path';
import { foldersOfSlug } from '../store/roots/folders-of-slug.js';
import { pathsOf, type Platform } from '../store/roots/platform.js';
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
 * Existing folders other than `folder` whose slug is `folder`'s: Reasonix run in any of them opens the
 * same store.
 */
export async function foldersSharingSlug(folder: string, platform: Platform): Promise<string[]> {
  const found = await foldersOfSlug(unboundedSlug(folder, platform), platform);
  return found.filter((path) => path !== posix.normalize(folder));
}
