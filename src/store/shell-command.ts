import { pathsOf, type Platform } from './platform.js';

/**
 * Commands rxstore suggests, in the platform's shell: POSIX `sh` off Windows, `cmd.exe` on it.
 * Each is one line a person can paste.
 */
export function quote(value: string, platform: Platform): string {
  if (platform === 'win32') return /^[\w\\:.\-]+$/.test(value) ? value : `"${value}"`;
  return /^[\w/.,:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `reasonix --resume <query>`: an id, or a JSONL transcript path (spec §13.1). */
export function reasonixResume(query: string, platform: Platform): string {
  return `reasonix --resume ${quote(query, platform)}`;
}

/** Runs `command` from `folder`: Reasonix picks the store by the working directory (spec §1.2). */
export function fromFolder(folder: string, command: string, platform: Platform): string {
  return `${platform === 'win32' ? 'cd /d' : 'cd'} ${quote(folder, platform)} && ${command}`;
}

/** Runs `command` with Reasonix's state root pinned to `stateRoot` (spec §1.1). */
export function withStateRoot(stateRoot: string, command: string, platform: Platform): string {
  return platform === 'win32'
    ? `set "REASONIX_STATE_HOME=${stateRoot}" && ${command}`
    : `REASONIX_STATE_HOME=${quote(stateRoot, platform)} ${command}`;
}

/** Copies a directory into `intoDir` (created if missing), keeping its name; an existing folder of that name is merged into. */
export function copyInto(dir: string, intoDir: string, platform: Platform): string {
  const paths = pathsOf(platform);
  if (platform === 'win32') return `xcopy /E /I /Q /Y ${quote(dir, platform)} ${quote(paths.join(intoDir, paths.basename(dir)), platform)}`;
  return `mkdir -p ${quote(intoDir, platform)} && cp -R ${quote(dir, platform)} ${quote(`${intoDir}/`, platform)}`;
}
