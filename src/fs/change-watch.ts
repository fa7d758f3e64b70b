import { lstatSync, readFileSync, statfsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

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

const MAX_USER_WATCHES = '/proc/sys/fs/inotify/max_user_watches';
const MAX_QUEUED_EVENTS = '/proc/sys/fs/inotify/max_queued_events';
/** The mounts this process sees: a mount over a watched folder tells no watch, but changes this. */
const MOUNT_INFO = '/proc/self/mountinfo';

/** One watched directory: the names in it whose change matters, or all of them (a directory that was listed). */
type Names = Set<string> | 'all';

/**
 * Change notification over a set of paths, so that a process that asks again and again whether files
 * changed need not stat each of them every time (Linux's inotify, through `fs.watch`). Inside the
 * `listed` directories, each path's directory is watched for its name, each listed directory for any
 * entry, and every directory between for the name on the path; above them, where folders of other
 * programs are busy, the topmost paths are stated at each `quiet` instead (a folder renamed or replaced
 * above gives them another inode). Once anything covered changes, the watch says so until `arm`; one
 * whose folders were replaced (`restructured`) watches what is gone and is to be made again.
 *
 * It gives none (and the caller stats) where it could miss a change: not Linux; a file system changed
 * from elsewhere (NFS, FUSE); a symbolic link or a file of several names (a hard link) inside the listed
 * folders, which a change through another path bypasses; more folders than a quarter of the user's
 * watch limit. A mount added or removed anywhere, or as many events as the kernel's queue holds (past
 * that it drops them), count as a change. The watches keep no process alive.
 */
export class ChangeWatch {
  private changed = false;
  /** A watched folder was renamed, removed or replaced, or a mount changed: the watch is to be made again. */
  restructured = false;
  private events = 0;
  private readonly watchers: FSWatcher[] = [];

  private constructor(
    private readonly dirs: Map<string, Names>,
    /** The topmost paths, stated at each `quiet`, with what a stat said of them at first. */
    private readonly tops: Map<string, string>,
    private readonly mounts: string,
    private readonly queueLimit: number,
  ) {}

  /** A watch over `paths` and the `listed` directories, armed (changes from now on count); undefined where it could miss one. */
  static of(paths: readonly string[], listed: readonly string[] = []): ChangeWatch | undefined {
    if (process.platform !== 'linux') return undefined;
    const inside = listed.map((dir) => resolve(dir));
    const plan = watchPlan(
      paths.map((path) => resolve(path)),
      inside,
    );
    if (!plan || plan.dirs.size > limitOf(MAX_USER_WATCHES, 8192) / WATCH_LIMIT_SHARE) return undefined;
    const mounts = mountInfo();
    if (mounts === undefined) return undefined;
    const change = new ChangeWatch(plan.dirs, plan.tops, mounts, limitOf(MAX_QUEUED_EVENTS, 16384));
    const local = new LocalDirs();
    for (const [dir, names] of plan.dirs) {
      if (!local.has(dir) || !change.watchDir(dir, names)) {
        change.close();
        return undefined;
      }
    }
    return change;
  }

  /**
   * Whether nothing covered changed since the watch was made or last armed. What the kernel queued before
   * the call is taken first: two turns of the event loop, the second after a poll for the watch's events.
   */
  async quiet(): Promise<boolean> {
    for (let turn = 0; turn < 2; turn += 1) await new Promise<void>((done) => setImmediate(done));
    // Past a full queue the kernel drops events, and says so in one that Node does not pass on.
    if (this.events * 2 >= this.queueLimit) this.changed = true;
    if (!this.changed && (mountInfo() !== this.mounts || [...this.tops].some(([path, was]) => entryOf(path) !== was)))
      this.changed = this.restructured = true;
    // Restructured, it watches folders that are gone: never quiet again.
    return !this.changed && !this.restructured;
  }

  /** Changes count from now on: call it before reading what the watch covers. */
  arm(): void {
    this.changed = false;
    this.events = 0;
  }

  close(): void {
    this.changed = this.restructured = true;
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  /**
   * Watches one directory; false when the kernel would not (a limit reached, no access). One that is not
   * there (or no folder) is left to its parent, watched for its name, or to the stat of the topmost paths.
   */
  private watchDir(dir: string, names: Names): boolean {
    try {
      const watcher = watch(dir, { persistent: false }, (event, name) => {
        this.events += 1;
        // An event of the directory itself (removed, moved) is named by the directory's own name.
        if (name === null || name === basename(dir) || (event === 'rename' && this.dirs.has(join(dir, name))))
          this.changed = this.restructured = true;
        else if (names === 'all' || names.has(name)) this.changed = true;
      });
      watcher.on('error', () => {
        this.changed = this.restructured = true;
      });
      this.watchers.push(watcher);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR';
    }
  }
}

/**
 * The directories to watch, each with its names, and the topmost paths to stat; undefined when a path inside
 * the listed folders is a symbolic link or a file of several names.
 */
function watchPlan(
  paths: readonly string[],
  listed: readonly string[],
): { dirs: Map<string, Names>; tops: Map<string, string> } | undefined {
  const listedSet = new Set(listed);
  const insideListed = (dir: string) => {
    for (let at = dir; ; at = dirname(at)) {
      if (listedSet.has(at)) return true;
      if (dirname(at) === at) return false;
    }
  };
  const dirs = new Map<string, Names>();
  for (const dir of listed) dirs.set(dir, 'all');
  const tops = new Map<string, string>();
  for (const path of [...listed, ...paths]) {
    for (let at = path; ; at = dirname(at)) {
      const parent = dirname(at);
      if (parent === at || !insideListed(parent)) {
        tops.set(at, entryOf(at));
        break;
      }
      const names = dirs.get(parent);
      const name = basename(at);
      // Every directory above was planned by an earlier path through here.
      if (names === 'all' || names?.has(name)) break;
      if (names) names.add(name);
      else dirs.set(parent, new Set([name]));
    }
  }
  for (const path of new Set([...paths, ...dirs.keys()])) {
    if (tops.has(path)) continue;
    const entry = lstatOrUndefined(path);
    if (entry && (entry.isSymbolicLink() || (!entry.isDirectory() && entry.nlink > 1))) return undefined;
  }
  return { dirs, tops };
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What a stat of a topmost path says (the entry and what it leads to), or the system's code. */
function entryOf(path: string): string {
  const fields = (stat: () => ReturnType<typeof statSync> | undefined) => {
    try {
      const stats = stat();
      if (!stats) return 'ENOENT';
      const times = stats.isDirectory() ? '' : `:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
      return `${stats.dev}:${stats.ino}:${stats.mode}${times}`;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? 'error';
    }
  };
  return `${fields(() => lstatSync(path, { throwIfNoEntry: false }))}>${fields(() => statSync(path, { throwIfNoEntry: false }))}`;
}

function mountInfo(): string | undefined {
  try {
    return readFileSync(MOUNT_INFO, 'utf8');
  } catch {
    return undefined;
  }
}

/** A limit the kernel says in `/proc`, or its old default where it does not. */
function limitOf(file: string, fallback: number): number {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || fallback;
  } catch {
    return fallback;
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
