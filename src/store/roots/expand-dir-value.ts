import { pathsOf, type Platform } from './platform.js';

/** What a directory value written by a person is resolved against. */
export interface DirValueContext {
  platform: Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (Go's `os.UserHomeDir()`); empty when it has none. */
  homeDir: string;
  /** Relative values are made absolute against this directory. */
  cwd: string;
}

/** `${NAME}` or `${NAME:-default}`: the only references Reasonix expands (its config `ExpandVars`). */
const VARIABLE_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g;

/**
 * Normalises a directory taken from the environment (or from `[storage] state`) as Reasonix does
 * (docs/format.md §1.1): trim, expand `${VAR}` (unset or empty → its `:-default`, else nothing), expand a
 * leading `~`, `~/` or `~\` to the home directory, make absolute, clean. Empty → undefined.
 */
export function expandDirValue(value: string | undefined, context: DirValueContext): string | undefined {
  let dir = value?.trim() ?? '';
  if (dir === '') return undefined;
  dir = dir.replace(
    VARIABLE_REFERENCE,
    (_reference, name: string, hasDefault: string | undefined, fallback: string | undefined) => {
      const set = context.env[name];
      if (set) return set;
      return hasDefault ? (fallback ?? '') : '';
    },
  );
  const paths = pathsOf(context.platform);
  if (context.homeDir) {
    if (dir === '~') dir = context.homeDir;
    else if (dir.startsWith('~/') || dir.startsWith('~\\')) dir = paths.join(context.homeDir, dir.slice(2));
  }
  return paths.resolve(context.cwd, dir);
}
