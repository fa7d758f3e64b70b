import { lstatSync, readFileSync, statfsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * File systems whose every change the kernel's watch sees (they live on this machine): ext2–4, XFS,
 * Btrfs, tmpfs, overlayfs, ZFS, F2FS, ramfs. A network or FUSE file system changed from elsewhere
 * tells no watch, so a path on one is never watched.
 */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0x858458f6,
]);

/** The share of the user's watch limit one process may take: the rest is left to editors and the like. */
const WATCH_LIMIT_SHARE = 4;

/** Where the kernel says how many directories one user may watch. */
const MAX_USER_WATCHES = '/proc/sys/fs/inotify/max_user_watches';

/** One watched directory: the names in it whose change matters, or all of them (a directory that was listed). */
type Names = Set<string> | 'all';

/**
 * Change notification over a set of paths, so that a process that asks again and again whether files
 * changed need not stat each of them every time: each path's directory is watched for its name, and
 * every directory above it for the name on the path (a folder renamed or replaced above a file is a
 * change too); a `listed` directory is watched for any entry added or removed. Linux only, on
 * local file systems: elsewhere `of` gives none, and the caller stats. Once anything watched changes,
 * the watch says so until `arm` is called again; the watch keeps no process alive.
 */
export class ChangeWatch {
  private changed = false;
  private readonly watchers: FSWatcher[] = [];

  private constructor() {}

  /**
   * A watch over `paths` and the `listed` directories, armed (changes from now on count); undefined when they cannot all be watched
   * here: not Linux, a file system changed from elsewhere, more directories than a quarter of the user's
   * watch limit, or a watch the kernel refused.
   */
  static of(paths: readonly string[], listed: readonly string[] = []): ChangeWatch | undefined {
    if (process.platform !== 'linux') return undefined;
    const dirs = watchedNames(paths, listed);
    if (dirs.size > watchLimit() / WATCH_LIMIT_SHARE) return undefined;
    const change = new ChangeWatch();
    const local = new LocalDirs();
    for (const [dir, names] of dirs) {
      const kept = local.has(dir) ? change.watchDir(dir, names) : 'cannot';
      if (kept === 'cannot') {
        change.close();
        return undefined;
      }
    }
    return change;
  }

  /**
   * Whether nothing watched changed since the watch was made or last armed. What the kernel queued before
   * the call is taken first: two turns of the event loop, the second after a poll for the watch's events.
   */
  async quiet(): Promise<boolean> {
    for (let turn = 0; turn < 2; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
    return !this.changed;
  }

  /** Changes count from now on: call it before reading what the watch covers. */
  arm(): void {
    this.changed = false;
  }

  close(): void {
    this.changed = true;
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  /** Watches one directory; a directory that is not there (or not one) is left to its parent's watch, which names it. */
  private watchDir(dir: string, names: Names): 'watched' | 'absent' | 'cannot' {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        // An event of the directory itself is named by the directory's own name.
        if (names === 'all' || name === null || names.has(name) || name === basename(dir)) this.changed = true;
      });
      watcher.on('error', () => {
        this.changed = true;
      });
      this.watchers.push(watcher);
      return 'watched';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : 'cannot';
    }
  }
}

/**
 * Which directories are on a local file system (`LOCAL_FILE_SYSTEMS`). A directory that is no symbolic link
 * and on its parent's device is on its parent's file system: only the others are asked (a `statfs` costs ten
 * times a `stat`). A directory that is not there is not asked about: it is watched by its parent.
 */
class LocalDirs {
  private readonly devices = new Map<string, { dev: number; local: boolean } | null>();

  has(dir: string): boolean {
    return this.of(dir)?.local ?? true;
  }

  private of(dir: string): { dev: number; local: boolean } | null {
    const known = this.devices.get(dir);
    if (known !== undefined) return known;
    let found: { dev: number; local: boolean } | null = null;
    try {
      const entry = lstatSync(dir);
      const parent = dirname(dir) === dir ? null : this.of(dirname(dir));
      const local =
        parent !== null && !entry.isSymbolicLink() && entry.dev === parent.dev
          ? parent.local
          : LOCAL_FILE_SYSTEMS.has(Number(statfsSync(dir).type));
      found = { dev: entry.isSymbolicLink() ? statSync(dir).dev : entry.dev, local };
    } catch {
      found = null;
    }
    this.devices.set(dir, found);
    return found;
  }
}

/** The directories to watch for `paths`, each with the names in it that matter. */
function watchedNames(paths: readonly string[], listed: readonly string[]): Map<string, Names> {
  const dirs = new Map<string, Names>();
  const add = (dir: string, name: string | 'all') => {
    const names = dirs.get(dir);
    if (names === 'all') return;
    if (name === 'all') dirs.set(dir, 'all');
    else if (names) names.add(name);
    else dirs.set(dir, new Set([name]));
  };
  for (const dir of listed) add(dir, 'all');
  for (const path of [...listed, ...paths]) {
    for (let at = path; dirname(at) !== at; at = dirname(at)) {
      const parent = dirname(at);
      const known = dirs.get(parent);
      const name = basename(at);
      // Every directory above was added by an earlier path through here.
      if (known !== undefined && (known === 'all' || known.has(name))) break;
      add(parent, name);
    }
  }
  return dirs;
}

/** How many directories the user may watch (8,192 where the kernel does not say: the old default). */
function watchLimit(): number {
  try {
    return Number(readFileSync(MAX_USER_WATCHES, 'utf8').trim()) || 8192;
  } catch {
    return 8192;
  }
}
