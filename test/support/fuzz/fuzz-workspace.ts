import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, open, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Entries, Entry } from './fuzz-bases.js';

/**
 * Lays fuzz stores out under one root. Consecutive inputs share most files, so only what differs
 * from the input before is removed and written again: a cut log costs one write, not a store.
 */
export class FuzzWorkspace {
  private current: Entries = new Map();

  constructor(readonly root: string) {}

  path(relative: string): string {
    return join(this.root, relative);
  }

  async lay(entries: Entries): Promise<void> {
    // Deepest first, so a directory's contents go before the directory.
    const stale = [...this.current.keys()]
      .filter((path) => !sameEntry(this.current.get(path), entries.get(path)))
      .sort()
      .reverse();
    for (const path of stale) await rm(this.path(path), { recursive: true, force: true });
    for (const [path, entry] of entries) {
      if (!sameEntry(this.current.get(path), entry)) await create(this.path(path), entry);
    }
    this.current = entries;
  }

  /**
   * Opens each FIFO of the current store for writing and closes it at once: a reader blocked
   * opening one then reads an empty file. How a hung check is made to let go. True when a reader
   * was there.
   */
  releaseFifos(): boolean {
    let released = false;
    for (const [path, entry] of this.current) {
      if (entry.kind !== 'fifo') continue;
      try {
        closeSync(openSync(this.path(path), constants.O_WRONLY | constants.O_NONBLOCK));
        released = true;
      } catch {
        // ENXIO: nobody is reading it right now.
      }
    }
    return released;
  }
}

async function create(path: string, entry: Entry): Promise<void> {
  // Whatever stood here before goes first: writing into a FIFO left behind would block.
  await rm(path, { recursive: true, force: true });
  await mkdir(dirname(path), { recursive: true });
  switch (entry.kind) {
    case 'file':
      await writeFile(path, entry.bytes);
      break;
    case 'symlink':
      await symlink(entry.target, path);
      break;
    case 'fifo':
      execFileSync('mkfifo', [path]);
      break;
    case 'dir':
      await mkdir(path);
      break;
    case 'sparse': {
      const handle = await open(path, 'w');
      await handle.truncate(entry.bytes);
      await handle.close();
      break;
    }
  }
}

function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  if (a === undefined || b === undefined || a.kind !== b.kind) return a === b;
  switch (a.kind) {
    case 'file':
      // Inputs share their base's buffers: the same buffer is the same file.
      return a.bytes === (b as typeof a).bytes;
    case 'symlink':
      return a.target === (b as typeof a).target;
    case 'sparse':
      return a.bytes === (b as typeof a).bytes;
    default:
      return true;
  }
}
