// A log cut while the search index reads it (a copy put back over it with `cp`, which empties the file and
// writes it again, `-p` keeping its times) is not damage: the index reads the session again and its hits are whole. It once kept the
// cut as the session's damage, said with every hit of it until the session changed again. The cut is made in
// process where it tells, as in salvage's test of the same: the read, at the end of the bytes, asks the log's
// size again; the log is emptied for that question and written back whole at once.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { search, type FoundHit, type NotSearchedWhole, type SearchOptions } from '../../src/index.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const cut = vi.hoisted(() => ({ path: undefined as string | undefined, made: 0, times: 1 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  // Each descriptor of the log: how many times its size was asked for.
  const logFds = new Map<number, number>();
  const openSync = ((path: unknown, ...rest: unknown[]) => {
    const fd = (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
    if (path === cut.path) logFds.set(fd, 0);
    return fd;
  }) as typeof fs.openSync;
  const closeSync = ((fd: number) => {
    logFds.delete(fd);
    return fs.closeSync(fd);
  }) as typeof fs.closeSync;
  const fstatSync = ((fd: number, options?: { bigint?: boolean }) => {
    const asked = logFds.get(fd);
    if (asked === undefined || options?.bigint || cut.made >= cut.times)
      return (fs.fstatSync as (...args: unknown[]) => unknown)(fd, options);
    logFds.set(fd, asked + 1);
    if (asked + 1 !== 2) return fs.fstatSync(fd);
    // The second size check is the one at the end of the bytes: the log is empty then, and whole again after.
    const bytes = fs.readFileSync(cut.path!);
    const { atime, mtime } = fs.statSync(cut.path!);
    fs.truncateSync(cut.path!, 0);
    const stats = fs.fstatSync(fd);
    fs.writeFileSync(cut.path!, bytes);
    // Its times kept, as `cp -p` keeps them: the log's stamp is what it was.
    fs.utimesSync(cut.path!, atime, mtime);
    cut.made += 1;
    return stats;
  }) as typeof fs.fstatSync;
  const mocked = { openSync, closeSync, fstatSync };
  return { ...fs, ...mocked, default: { ...fs, ...mocked } };
});

afterEach(() => Object.assign(cut, { path: undefined, made: 0, times: 1 }));

/** A copy of a session the real Reasonix wrote, with a search index of its own. */
async function sessionCopy() {
  const { root: from, dir: fromDir } = fixture('tool-calls');
  const root = await tempDir('rxstore-search-cut-');
  await cp(from, root, { recursive: true });
  const options: SearchOptions = {
    roots: [{ kind: 'state', path: root, lines: ['1.x'] }],
    platform: 'linux',
    cacheDir: join(root, 'cache'),
  };
  return { log: join(fromDir.replace(from, root), 'events.frames'), options };
}

async function searched(query: string, options: SearchOptions) {
  const hits: FoundHit[] = [];
  const notWhole: NotSearchedWhole[] = [];
  for await (const hit of search(query, { ...options, onNotWhole: (part) => notWhole.push(part) })) hits.push(hit);
  return { hits, notWhole };
}

describe('a search whose index reads a log cut while it reads it', () => {
  it('reads the session again: its hits are whole, the same as a search straight from the stores', async () => {
    const { log, options } = await sessionCopy();
    const direct = await searched('the', { ...options, index: false });
    expect(direct.hits.length).toBeGreaterThan(0);
    Object.assign(cut, { path: log });
    const first = await searched('the', options);
    expect(cut.made).toBe(1);
    expect(first.notWhole).toEqual([]);
    expect(first.hits.map((hit) => hit.damage ?? null)).toEqual(direct.hits.map(() => null));
    expect(first.hits.map((hit) => hit.key)).toEqual(direct.hits.map((hit) => hit.key));
    // The next search, with nothing changed since, gives the same.
    const again = await searched('the', options);
    expect(again.notWhole).toEqual([]);
    expect(again.hits.map((hit) => hit.key)).toEqual(direct.hits.map((hit) => hit.key));
  });

  it('cut on every read: the session is not kept as damaged, and the next search reads it again', async () => {
    const { log, options } = await sessionCopy();
    Object.assign(cut, { path: log, times: 10 });
    const first = await searched('the', options);
    expect(cut.made).toBeGreaterThanOrEqual(2);
    // Said as it is: this search could not read the session whole, because its log kept changing.
    expect(first.notWhole.map((part) => ('damage' in part ? part.damage : part.warning))).toEqual([expect.stringContaining('cut')]);
    Object.assign(cut, { path: undefined });
    const again = await searched('the', options);
    expect(again.notWhole).toEqual([]);
    expect(again.hits.length).toBeGreaterThan(0);
    expect(again.hits.every((hit) => !hit.damage)).toBe(true);
  });
});
