import { posix, win32 } from 'node:path';

/**
 * The operating system whose rules apply. Reasonix decides paths, slugs and defaults by its own
 * OS (docs/format.md §1.1, §1.3), so rxstore takes it as an input rather than reading `process.platform`:
 * every platform's rules can then be checked on any machine.
 */
export type Platform = 'linux' | 'darwin' | 'win32';

/** The platform rxstore runs on; any other Unix follows the Linux rules, as Go's non-Windows branches do. */
export function currentPlatform(): Platform {
  return process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux';
}

/** `path.win32` on Windows, `path.posix` elsewhere: the path rules of the platform, not of the host. */
export function pathsOf(platform: Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}
