import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { movedProject } from '../support/sessions/relocation-fixture.js';

describe('where, for a session whose workspace folder is gone', () => {
  it('never tells to cd into the gone folder: it gives the relocate command, then the resume', async () => {
    const { home, from, v4, jsonl } = await movedProject();
    for (const id of [v4[0]!, jsonl]) {
      const where = await runCliChild(['where', id, '--home', home]);
      expect(where.code, where.stderr).toBe(0);
      expect(where.stdout).not.toContain(`cd ${from}`);
      expect(where.stdout).toContain(
        `to resume: rxstore relocate ${from} <new folder>, then \`reasonix --resume ${id}\` from the new folder`,
      );
    }
  });
});
