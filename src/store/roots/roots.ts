import { readRegularFile } from '../../fs/read-regular-file.js';
import { expandDirValue, type DirValueContext } from './expand-dir-value.js';
import { pathsOf, type Platform } from './platform.js';
import { storageStateEntry } from './storage-state-entry.js';

/** Far above any config.toml a person writes; a larger one is read as no setting. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** The machine as Reasonix sees it: platform, home directory, environment and working directory. */
export type RootInputs = DirValueContext;

/** The Reasonix release line whose root rules apply (docs/format.md §1.1). */
export type ReasonixLine = '1.x' | '2.x';

/** rxstore's own flags, which act as `REASONIX_HOME` / `REASONIX_STATE_HOME` would. */
export interface RootOverrides {
  home?: string;
  stateHome?: string;
}

/** A directory rxstore reads sessions from. */
export type ReadRoot =
  /** A state root (docs/format.md §1.2); `lines` says which Reasonix lines use it. */
  | { kind: 'state'; path: string; lines: ReasonixLine[] }
  /** A pre-1.8.1 / v0.x root that Reasonix only imports from (docs/format.md §1.4). */
  | { kind: 'legacy'; path: string }
  /** `RXSTORE_ROOT` naming a single store directory (a `sessions-v4`, `by-id` or JSONL `sessions` folder). */
  | { kind: 'store'; path: string };

/**
 * The Reasonix variables the roots were pinned with (by rxstore's flags or the environment),
 * expanded: a command for Reasonix must carry them, or it would look under the default home.
 */
export interface PinnedRoots {
  REASONIX_HOME?: string;
  REASONIX_STATE_HOME?: string;
}

/** Every root Reasonix reads sessions from, newest store first. */
export interface StoreRoots {
  /** The state root `reasonix --resume` of 1.38.11 searches (docs/format.md §13.1); undefined when there is no home. */
  reasonixStateRoot: string | undefined;
  /** `REASONIX_HOME` / `REASONIX_STATE_HOME` as `--home`, `--state-home` or the environment set them; empty when neither is. */
  pinned: PinnedRoots;
  roots: ReadRoot[];
}

/** rxstore-only: read this state root or store directory, and nothing else. */
export const RXSTORE_ROOT = 'RXSTORE_ROOT';

/** Go's `os.UserConfigDir()` for the platform; '' where it reports an error. */
function userConfigDir(inputs: RootInputs): string {
  const paths = pathsOf(inputs.platform);
  if (inputs.platform === 'win32') return inputs.env.APPDATA ?? '';
  if (inputs.platform === 'darwin')
    return inputs.homeDir ? paths.join(inputs.homeDir, 'Library', 'Application Support') : '';
  const xdg = inputs.env.XDG_CONFIG_HOME ?? '';
  if (xdg) return paths.isAbsolute(xdg) ? xdg : '';
  return inputs.homeDir ? paths.join(inputs.homeDir, '.config') : '';
}

/**
 * The Reasonix home (config.toml, .env), as 1.38.11 and 2.x resolve it (docs/format.md §1.1):
 * `$REASONIX_HOME`; on Windows `%APPDATA%\reasonix`, else `%USERPROFILE%\AppData\Roaming\reasonix`;
 * elsewhere `~/.reasonix`, else `os.UserConfigDir()/reasonix`.
 */
export function reasonixHome(inputs: RootInputs): string | undefined {
  const pinned = expandDirValue(inputs.env.REASONIX_HOME, inputs);
  if (pinned) return pinned;
  const paths = pathsOf(inputs.platform);
  const configDir = userConfigDir(inputs);
  if (inputs.platform === 'win32') {
    if (configDir) return paths.join(configDir, 'reasonix');
    return inputs.homeDir ? paths.join(inputs.homeDir, 'AppData', 'Roaming', 'reasonix') : undefined;
  }
  if (inputs.homeDir) return paths.join(inputs.homeDir, '.reasonix');
  return configDir ? paths.join(configDir, 'reasonix') : undefined;
}

/**
 * The state root (sessions, projects, desktop stores): `$REASONIX_STATE_HOME`, then — in 2.x only —
 * the `[storage] state` entry of `<home>/config.toml`, then the home (docs/format.md §1.1). 1.38.11 has no
 * `[storage]` table, so `storageState` is ignored for it.
 */
export function stateRoot(inputs: RootInputs, line: ReasonixLine, storageState?: string): string | undefined {
  return (
    expandDirValue(inputs.env.REASONIX_STATE_HOME, inputs) ??
    (line === '2.x' ? expandDirValue(storageState, inputs) : undefined) ??
    reasonixHome(inputs)
  );
}

/**
 * Legacy roots Reasonix imports JSONL and v0.x transcripts from (docs/format.md §1.4): `~/.reasonix` (on
 * Windows it differs from the home), `os.UserConfigDir()/reasonix` (macOS
 * `~/Library/Application Support/reasonix`), and off Windows `$XDG_CONFIG_HOME/reasonix` and
 * `~/.config/reasonix`. None when the home or state root is pinned: an isolated runtime never
 * imports (1.38.11 checks `REASONIX_HOME`, newer source `REASONIX_STATE_HOME` too). Roots that
 * coincide with the home are not legacy.
 */
export function legacyRoots(inputs: RootInputs): string[] {
  if (expandDirValue(inputs.env.REASONIX_HOME, inputs) || expandDirValue(inputs.env.REASONIX_STATE_HOME, inputs))
    return [];
  const paths = pathsOf(inputs.platform);
  const candidates: string[] = [];
  if (inputs.homeDir) candidates.push(paths.join(inputs.homeDir, '.reasonix'));
  const configDir = userConfigDir(inputs);
  if (configDir) candidates.push(paths.join(configDir, 'reasonix'));
  if (inputs.platform !== 'win32') {
    const xdg = expandDirValue(inputs.env.XDG_CONFIG_HOME, inputs);
    if (xdg) candidates.push(paths.join(xdg, 'reasonix'));
    if (inputs.homeDir) candidates.push(paths.join(inputs.homeDir, '.config', 'reasonix'));
  }
  const home = reasonixHome(inputs);
  return [...new Set(candidates.map((dir) => paths.normalize(dir)))].filter((dir) => dir !== home);
}

/** `--home` and `--state-home` mean what the variables mean, so they go through the same rules. */
function withOverrides(inputs: RootInputs, overrides: RootOverrides): RootInputs {
  return {
    ...inputs,
    env: {
      ...inputs.env,
      ...(overrides.home !== undefined ? { REASONIX_HOME: overrides.home } : {}),
      ...(overrides.stateHome !== undefined ? { REASONIX_STATE_HOME: overrides.stateHome } : {}),
    },
  };
}

/**
 * Everything rxstore reads, and the state root Reasonix 1.38.11 resumes from. `--home` /
 * `--state-home` act as the Reasonix variables; `RXSTORE_ROOT` (ignored when a flag is given)
 * narrows reading to one state root or store directory. Otherwise both lines' state roots are read
 * (they differ when a 2.x `[storage] state` relocates sessions) plus the legacy roots.
 */
export async function resolveStoreRoots(machine: RootInputs, overrides: RootOverrides = {}): Promise<StoreRoots> {
  const flagged = overrides.home !== undefined || overrides.stateHome !== undefined;
  const inputs = withOverrides(machine, overrides);
  const reasonixStateRoot = stateRoot(inputs, '1.x');
  const pinned = pinnedRoots(inputs);
  const only = flagged ? undefined : expandDirValue(inputs.env[RXSTORE_ROOT], inputs);
  if (only) {
    const root: ReadRoot = isStoreDirName(pathsOf(inputs.platform).basename(only))
      ? { kind: 'store', path: only }
      : { kind: 'state', path: only, lines: [] };
    return { reasonixStateRoot, pinned, roots: [root] };
  }

  const home = reasonixHome(inputs);
  // A regular file of a setting's size only: a FIFO or /dev/zero standing there must not hang or fill every command.
  const storageState = home
    ? storageStateEntry(
        readRegularFile(pathsOf(inputs.platform).join(home, 'config.toml'), MAX_CONFIG_BYTES)?.toString('utf8') ?? '',
      )
    : undefined;
  const roots: ReadRoot[] = [];
  for (const line of ['1.x', '2.x'] as const) {
    const path = stateRoot(inputs, line, storageState);
    if (!path) continue;
    const known = roots.find((root) => root.kind === 'state' && root.path === path);
    if (known?.kind === 'state') known.lines.push(line);
    else roots.push({ kind: 'state', path, lines: [line] });
  }
  for (const path of legacyRoots(inputs)) {
    if (!roots.some((root) => root.path === path)) roots.push({ kind: 'legacy', path });
  }
  return { reasonixStateRoot, pinned, roots };
}

function pinnedRoots(inputs: RootInputs): PinnedRoots {
  const home = expandDirValue(inputs.env.REASONIX_HOME, inputs);
  const state = expandDirValue(inputs.env.REASONIX_STATE_HOME, inputs);
  return { ...(home ? { REASONIX_HOME: home } : {}), ...(state ? { REASONIX_STATE_HOME: state } : {}) };
}

/** The names a store directory has (docs/format.md §1.2, §12); anything else given as `RXSTORE_ROOT` is a state root. */
function isStoreDirName(name: string): boolean {
  return name === 'sessions-v4' || name === 'sessions' || name === 'by-id';
}

/** What a resume verdict depends on: the platform, the folder Reasonix would run from, the state root it would use there. */
export interface ResumeContext {
  platform: Platform;
  /** The folder `reasonix --resume` would be run from. */
  cwd: string;
  /** The state root Reasonix 1.38.11 uses there (docs/format.md §1.1). */
  reasonixStateRoot: string | undefined;
  /** `REASONIX_HOME` / `REASONIX_STATE_HOME` the roots were found with: every suggested `reasonix` command carries them. */
  pinned?: PinnedRoots;
  /**
   * The session's workspace when the caller knows it and the session does not say: migrate knows the
   * folder it migrated a transcript of no workspace into, and its command runs from there.
   */
  workspace?: string;
}
