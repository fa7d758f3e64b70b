// A log cut while the search index reads it (a copy put back over it with `cp`, which empties the file and
// writes it again, `-p` keeping its times) is not damage: the index reads the session again and its hits are whole. It once kept the
// cut as the session's damage, said with every hit of it until the session changed again. The cut is made in
// process where it tells (`withSizeCheckCut`): the read, at the end of the bytes, asks the log's size again; the
// log is emptied for that question and written back whole at once.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { search, type FoundHit, type NotSearchedWhole, type SearchOptions } from '../../src/index.js';
import { copiedOver } from '../support/faults/size-check-cut.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

// Cut `times` times, each a copy put back over the log.
const cut = vi.hoisted(() => ({
  path: undefined as string | undefined,
  made: 0,
  times: 1,
  atSecondCheck(fs: typeof import('node:fs'), fd: number) {
    if (this.made >= this.times) return undefined;
    this.made += 1;
    return copiedOver(fs, this.path!, fd, true);
  },
}));

vi.mock('node:fs', async (importOriginal) =>
  (await import('../support/faults/size-check-cut.js')).withSizeCheckCut(await importOriginal(), cut),
);

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
    expect(first.notWhole.map((part) => ('damage' in part ? part.damage : part.warning))).toEqual([
      expect.stringContaining('cut'),
    ]);
    Object.assign(cut, { path: undefined });
    const again = await searched('the', options);
    expect(again.notWhole).toEqual([]);
    expect(again.hits.length).toBeGreaterThan(0);
    expect(again.hits.every((hit) => !hit.damage)).toBe(true);
  });
});
