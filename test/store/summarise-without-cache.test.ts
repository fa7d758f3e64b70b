// A copy read for a listing no summary cache keeps (`ls --no-cache`) is summarised as one the cache keeps,
// row for row, a damaged copy included; only what the cache alone uses (where a later read goes on from,
// the content files' stamp) is left out.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessionCopies } from '../../src/store/listing/find-session-copies.js';
import { summariseCopy } from '../../src/store/listing/summarise-copy.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { editLog } from '../support/faults/faults.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

describe('a copy summarised for no cache', () => {
  it('gives the summary a cached read gives, and no resume point', async () => {
    const storeDir = join(await tempDir('rxstore-no-cache-'), 'sessions-v4');
    const dirs: string[] = [];
    for (let at = 0; at < 3; at += 1) {
      const batches = Array.from({ length: 2 }, (_, turn) => ({
        operationId: `rxstore-test:no-cache-${at}-${turn}`,
        events: [
          complete({ role: 'user', id: messageId(), origin: 'user', content: `session ${at} turn ${turn}` }),
          complete({ role: 'assistant', id: messageId(), content: `answer ${at}.${turn}` }),
        ],
      }));
      dirs.push((await createSession({ storeDir, batches })).dir);
    }
    await editLog(dirs[1]!, (log) => {
      const copy = Buffer.from(log);
      copy[copy.length - 20]! ^= 0xff;
      return copy;
    });
    const found = await findSessionCopies([{ kind: 'store', path: storeDir }]);
    const statuses: string[] = [];
    for (const copy of found.copies) {
      const cached = await summariseCopy(copy, { verify: false, registry: undefined });
      const uncached = await summariseCopy(copy, { verify: false, registry: undefined, forCache: false });
      expect(uncached).toEqual({ summary: cached.summary });
      statuses.push(uncached.summary.status);
      if (cached.summary.status === 'ok') expect(cached.resume).toBeDefined();
    }
    expect(statuses.sort()).toEqual(['damaged', 'ok', 'ok']);
  });
});
