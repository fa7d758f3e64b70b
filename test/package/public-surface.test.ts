import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNodeChild } from '../support/cli-child.js';
import { repoRoot } from '../support/paths.js';

// API Extractor reads the declarations the test setup built (dist/) and compares the library's
// public surface with docs/api/reasonix-sessions.api.md: a change to what users import is a
// deliberate edit of that file (`npm run api`), never a side effect.
describe("the library's public surface", () => {
  it('is the one recorded in docs/api, and every type its signatures use is exported', async () => {
    const extractor = join(repoRoot, 'node_modules/@microsoft/api-extractor/bin/api-extractor');
    const result = await runNodeChild([extractor, 'run'], { cwd: repoRoot });
    const said = `${result.stdout}\n${result.stderr}`;
    expect(said).not.toMatch(/ae-forgotten-export/);
    expect(said, 'the public surface changed: if that is meant, `npm run api` records it in docs/api').not.toMatch(
      /changed the API signature/,
    );
    expect(result.code, said).toBe(0);
  }, 120_000);
});
