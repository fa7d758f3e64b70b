import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * The working directory as Reasonix (Go's `os.Getwd`) reports it off Windows: `$PWD` when it is
 * absolute and names the same directory as `.`, else the resolved path. Inside a symlinked folder
 * the shell's `$PWD` keeps the link, while `process.cwd()` resolves it, and the workspace slug
 * Reasonix picks its store by comes from the former (docs/format.md §1.2).
 */
export function goWorkingDirectory(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const resolved = process.cwd();
  const pwd = env.PWD;
  if (platform === 'win32' || !pwd || !isAbsolute(pwd)) return resolved;
  try {
    const [named, here] = [statSync(pwd), statSync('.')];
    // Cleaned as Reasonix cleans the folder it runs in before it takes its slug: `//tmp/x/./y/` is `/tmp/x/y`.
    return named.dev === here.dev && named.ino === here.ino ? resolve(pwd) : resolved;
  } catch {
    // A system error from stat (PWD gone: ENOENT; unreadable: EACCES): Go's os.Getwd falls back the same way.
    return resolved;
  }
}
