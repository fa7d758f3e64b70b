// SQLite's WebAssembly build keeps the index in at most 2 GiB: a text of some hundreds of megabytes can take more.
// Its "out of memory" is said as what it is (RX_TOO_LARGE), never as the error of the read's end, nor as damage.
import type { Database } from 'node-sqlite3-wasm';
import { describe, expect, it } from 'vitest';
import { TooLargeError } from '../../src/errors/index.js';
import { SearchIndex } from '../../src/search/search-index.js';

describe("SQLite's out of memory in a search", () => {
  it('is RX_TOO_LARGE; the read transaction is taken back and the index reads on', async () => {
    const index = await SearchIndex.inMemory();
    try {
      const db = index['db'] as Database;
      // As SQLite fails when its memory runs out: the transaction taken back, then its error (an allocation of
      // 2 GiB made for real would cost every test run seconds and the memory).
      const error = (() => {
        try {
          index.reading(() => {
            db.all('select 1 as one');
            db.exec('rollback');
            throw Object.assign(new Error('out of memory'), { name: 'SQLite3Error' });
          });
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(TooLargeError);
      expect((error as TooLargeError).code).toBe('RX_TOO_LARGE');
      expect((error as TooLargeError).message).toMatch(/^the search ran out of memory: /);
      expect(index.reading(() => db.all('select 1 as one'))).toEqual([{ one: 1 }]);
    } finally {
      await index.close();
    }
  });
});
