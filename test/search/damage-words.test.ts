// What a search says of a session it read only part of: the session's damage with its code, or, for an error
// without one, that the failing is rxstore's own, never the session's damage.
import { describe, expect, it } from 'vitest';
import { DamagedStoreError } from '../../src/errors/index.js';
import { damageOf } from '../../src/search/search-sources.js';

describe('the words of a session read only up to where it stopped', () => {
  it("name the session's damage by its code", () => {
    expect(damageOf(new DamagedStoreError('decode v4 record at 12: not a JSON object'))).toBe(
      'RX_DAMAGED_STORE: decode v4 record at 12: not a JSON object',
    );
  });

  it("say an error without a code is rxstore's own failing, not the session's damage", () => {
    expect(damageOf(new TypeError("Cannot read properties of undefined (reading 'length')"))).toBe(
      "not the session's damage but rxstore's own failing (TypeError: Cannot read properties of undefined (reading 'length')): the rest of it was not searched",
    );
  });
});
