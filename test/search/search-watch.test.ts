import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  beginSearchCheck,
  checkedForSearch,
  forgetSearchWatch,
  WATCH_TRUSTED_MS,
} from '../../src/search/search-watch.js';
import { tempDir } from '../support/temp-dir.js';

/** A folder as a store, a file in it, and what a search's check of it looked at. */
async function checkedFiles() {
  const store = join(await tempDir('rxstore-search-watch-'), 'store');
  mkdirSync(join(store, 'a1'), { recursive: true });
  writeFileSync(join(store, 'a1', 'events.frames'), 'x');
  return { paths: [join(store, 'a1', 'events.frames')], listed: [store] };
}

/** One search's check, begun and ended: whether it could skip the stats. */
async function searchChecked(key: string, checked: Awaited<ReturnType<typeof checkedFiles>>): Promise<boolean> {
  const check = await beginSearchCheck(key);
  checkedForSearch(key, check, checked);
  return check.unchanged;
}

afterEach(() => {
  forgetSearchWatch();
  vi.useRealTimers();
});

describe.runIf(process.platform === 'linux')('a search check', () => {
  it('is skipped from the third search on, and checked by stats again once the watch has vouched a while', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const checked = await checkedFiles();
    expect(await searchChecked('k', checked)).toBe(false);
    expect(await searchChecked('k', checked)).toBe(false);
    expect(await searchChecked('k', checked)).toBe(true);
    vi.setSystemTime(Date.now() + WATCH_TRUSTED_MS - 1);
    expect(await searchChecked('k', checked)).toBe(true);
    vi.setSystemTime(Date.now() + 2);
    expect(await searchChecked('k', checked)).toBe(false);
    expect(await searchChecked('k', checked)).toBe(true);
  });

  it('of another index, roots or folder starts again', async () => {
    const checked = await checkedFiles();
    for (let run = 0; run < 3; run += 1) await searchChecked('k', checked);
    expect(await searchChecked('other', checked)).toBe(false);
    expect(await searchChecked('k', checked)).toBe(false);
  });
});
