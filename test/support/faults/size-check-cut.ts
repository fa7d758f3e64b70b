// A `node:fs` whose log reads can be cut where it tells: a read of a log, having reached the end of its bytes,
// asks the log's size again (its second size check on that descriptor; a stat with bigint is a cursor's stamp,
// not a size check). A test mocks `node:fs` with `withSizeCheckCut`, its state made with `vi.hoisted`, and says
// what happens to the log at that moment. Nothing here imports `node:fs`: the module mocked is handed in.
import type * as NodeFs from 'node:fs';

type Fs = typeof NodeFs;

/** The log to cut, and what is done to it at a descriptor's second size check: the size seen, or undefined for the file's own. */
export interface SizeCheckCut {
  path: string | undefined;
  atSecondCheck: (fs: Fs, fd: number) => NodeFs.Stats | undefined;
}

/** `fs` with `openSync`, `closeSync` and `fstatSync` watching the descriptors of `cut.path`. */
export function withSizeCheckCut(fs: Fs, cut: SizeCheckCut): Fs {
  const logFds = new Map<number, number>();
  const openSync = ((path: unknown, ...rest: unknown[]) => {
    const fd = (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
    if (path === cut.path) logFds.set(fd, 0);
    return fd;
  }) as Fs['openSync'];
  const closeSync = ((fd: number) => {
    logFds.delete(fd);
    return fs.closeSync(fd);
  }) as Fs['closeSync'];
  const fstatSync = ((fd: number, options?: { bigint?: boolean }) => {
    const asked = logFds.get(fd);
    if (asked !== undefined && !options?.bigint) {
      logFds.set(fd, asked + 1);
      const seen = asked + 1 === 2 ? cut.atSecondCheck(fs, fd) : undefined;
      if (seen) return seen;
    }
    return (fs.fstatSync as (...args: unknown[]) => unknown)(fd, options);
  }) as Fs['fstatSync'];
  const mocked = { openSync, closeSync, fstatSync };
  return { ...fs, ...mocked, default: { ...fs, ...mocked } } as Fs;
}

/**
 * What `cp` does to a log under a read: empties it (the size the read sees) and writes it back whole at once;
 * with `keepTimes`, its times kept as `cp -p` keeps them.
 */
export function copiedOver(fs: Fs, path: string, fd: number, keepTimes = false): NodeFs.Stats {
  const bytes = fs.readFileSync(path);
  const { atime, mtime } = fs.statSync(path);
  fs.truncateSync(path, 0);
  const stats = fs.fstatSync(fd);
  fs.writeFileSync(path, bytes);
  if (keepTimes) fs.utimesSync(path, atime, mtime);
  return stats;
}
