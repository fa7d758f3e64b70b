import { ChangeWatch } from '../fs/change-watch.js';

/**
 * What this process's searches of one index know of the files their freshness rests on (what the
 * listing looked at, and the content-store files the index read): the paths the last search checked,
 * and, from the second search on, a watch over them. A process that searches again and again (a
 * program using the library) then stats nothing while nothing changed; one search (the command
 * line) makes no watch.
 */
interface Watched {
  key: string;
  /** What the last search checked, by a stat of each. */
  checked: Checked | undefined;
  /** Over `paths`; `none` when they cannot be watched here (the searches stat them). */
  watch: ChangeWatch | 'none' | undefined;
  /** The check the watch was last armed for, and the last check that ended with the watch armed for it. */
  armed: number;
  vouched: number;
  /** When the last check by stats began (the wall clock, in ms). */
  statedAt: number;
}

/** The files a search checked, and the directories among them whose entries it listed. */
export interface Checked {
  paths: readonly string[];
  listed: readonly string[];
}

let watched: Watched | undefined;
let checks = 0;

/**
 * How long a check by stats vouches, watched, before the next is made by stats again: what no watch sees (a
 * file written through a shared memory map, a queue overflowed by another watcher of this process) is then
 * seen within this time.
 */
export const WATCH_TRUSTED_MS = 5000;

/** A search's check of the files: whether it may be skipped, its number and the watch armed for it (for `checkedForSearch`). */
export interface SearchCheck {
  /** Nothing the last search checked has changed since it began checking: its listing and stamps hold. */
  unchanged: boolean;
  check: number;
  watch: ChangeWatch | undefined;
}

/**
 * Called as a search of `key` (its roots, platform and index) begins, before it looks at any file.
 * Arms the watch for this search's own check, making it from the last search's paths the first time.
 */
export async function beginSearchCheck(key: string): Promise<SearchCheck> {
  const check = (checks += 1);
  if (watched?.key !== key) {
    forgetSearchWatch();
    watched = { key, checked: undefined, watch: undefined, armed: check, vouched: 0, statedAt: Date.now() };
    return { unchanged: false, check, watch: undefined };
  }
  const state = watched;
  const kept = state.watch instanceof ChangeWatch ? state.watch : undefined;
  const quiet = kept !== undefined && (await kept.quiet());
  // Only the last check armed, once it ended, vouches: one begun since (a search beside this one) has not ended.
  const unchanged =
    quiet && state.watch === kept && state.vouched === state.armed && Date.now() - state.statedAt < WATCH_TRUSTED_MS;
  if (!unchanged) state.statedAt = Date.now();
  // A watch whose folders were replaced watches what is gone: it is made again, before this search checks.
  if (kept?.restructured) {
    kept.close();
    state.watch = undefined;
  }
  if (state.watch === undefined && state.checked !== undefined)
    state.watch = ChangeWatch.of(state.checked.paths, state.checked.listed) ?? 'none';
  const watch = state.watch instanceof ChangeWatch ? state.watch : undefined;
  watch?.arm();
  state.armed = check;
  return { unchanged, check, watch };
}

/**
 * Called once the search's check (`beginSearchCheck`) has looked at `checked` and the index holds what they
 * say: the watch vouches for them while nothing changes. A watch over other paths is let go (the next
 * search makes one over these).
 */
export function checkedForSearch(key: string, { check, watch }: SearchCheck, checked: Checked): void {
  if (watched?.key !== key) return;
  const before = watched.checked;
  if (!before || !samePaths(before.paths, checked.paths) || !samePaths(before.listed, checked.listed)) {
    if (watched.watch instanceof ChangeWatch) watched.watch.close();
    watched.watch = undefined;
    watched.checked = checked;
    return;
  }
  // Vouched only by the watch that was armed as this check began, and is the one kept.
  if (watched.armed === check && watch !== undefined && watched.watch === watch) watched.vouched = check;
}

/** A search failed: nothing it checked is vouched for. */
export function forgetSearchWatch(): void {
  if (watched?.watch instanceof ChangeWatch) watched.watch.close();
  watched = undefined;
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((path, at) => path === b[at]));
}
