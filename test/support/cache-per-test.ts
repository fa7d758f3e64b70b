// A summary cache of its own, empty, for each test of the file or block that calls it: listings start cold
// and never see another test's rows.
import { afterEach, beforeEach } from 'vitest';
import { tempDir } from './temp-dir.js';

export function cachePerTest(): void {
  let before: string | undefined;
  beforeEach(async () => {
    before = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = await tempDir('rxstore-cache-');
  });
  afterEach(() => {
    process.env.XDG_CACHE_HOME = before;
  });
}
