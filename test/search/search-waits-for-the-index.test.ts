// A search while another process updates the index waits for it, and says so once (a person at a terminal is
// told why nothing happens yet): a first build of thousands of sessions takes a while.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryOsLock } from '../../src/fs/os-lock.js';
import { search, type FoundHit, type SearchOptions } from '../../src/index.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('a search while the index is held by another', () => {
  it('is told once that it waits, and gives its hits once the index is let go', async () => {
    const { root: from } = fixture('tool-calls');
    const root = await tempDir('rxstore-search-wait-');
    await cp(from, root, { recursive: true });
    const options: SearchOptions = {
      roots: [{ kind: 'state', path: root, lines: ['1.x'] }],
      platform: 'linux',
      cacheDir: join(root, 'cache'),
    };
    const direct: FoundHit[] = [];
    for await (const hit of search('the', { ...options, index: false })) direct.push(hit);
    // Made, then held as another search holds it while it builds.
    for await (const _ of search('the', options));
    const held = (await tryOsLock(join(root, 'cache', 'search-index.lock')))!;
    expect(held).toBeDefined();
    let waited = 0;
    const hits: FoundHit[] = [];
    for await (const hit of search('the', {
      ...options,
      onWaiting: () => {
        waited += 1;
        void held.release();
      },
    }))
      hits.push(hit);
    expect(waited).toBe(1);
    expect(hits.map((hit) => hit.key)).toEqual(direct.map((hit) => hit.key));
    // Free, it is not told.
    let told = 0;
    for await (const _ of search('the', { ...options, onWaiting: () => (told += 1) }));
    expect(told).toBe(0);
  });
});
