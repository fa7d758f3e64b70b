// A first search killed (a crash, a power cut) after the index committed part of a long session: the next search
// reads the rest of it from where the commit left it. The index once kept the session's stamp with that commit, so
// every later search took the half-read session as unchanged and never found what its rest held.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSession } from '../../src/index.js';
import { rxstoreBin, runNodeChild } from '../support/cli-child.js';
import { killAtFailPoint } from '../support/faults/fail-points.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

afterEach(() => vi.unstubAllEnvs());

/** Past the records an index commits at once (20,000): a build commits part way through the session. */
const BATCHES = 105;
const MESSAGES_PER_BATCH = 200;

describe('a first search killed part way through a long session', () => {
  it('reads the rest of it on the next search', async () => {
    const stateRoot = await tempDir('rxstore-search-killed-');
    const storeDir = join(stateRoot, 'projects', '-tmp-search-killed', 'sessions-v4');
    const last = (at: number, n: number) => at === BATCHES - 1 && n === MESSAGES_PER_BATCH - 1;
    await createSession({
      storeDir,
      batches: Array.from({ length: BATCHES }, (_, at) => ({
        operationId: `rxstore-test:killed-${at}-${messageId()}`,
        events: Array.from({ length: MESSAGES_PER_BATCH }, (_, n) =>
          n % 2 === 0
            ? complete({ role: 'user', id: messageId(), origin: 'user', content: `question ${at}.${n}` })
            : complete({
                role: 'assistant',
                id: messageId(),
                content: `answer ${at}.${n}${last(at, n) ? ' kingfisher' : ''}`,
              }),
        ),
      })),
    });
    for (const [name, value] of Object.entries({
      RXSTORE_ROOT: stateRoot,
      REASONIX_HOME: stateRoot,
      HOME: stateRoot,
      XDG_CACHE_HOME: join(stateRoot, 'cache'),
    }))
      vi.stubEnv(name, value);
    const searchArgv = [rxstoreBin, 'search', 'kingfisher', '--json'];
    await killAtFailPoint(searchArgv, { name: 'index.committed', hit: 1 });
    const again = await runNodeChild(searchArgv);
    expect(again.code, again.stderr).toBe(0);
    const hits = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { snippet: string });
    expect(hits.map((hit) => hit.snippet)).toEqual([`answer ${BATCHES - 1}.${MESSAGES_PER_BATCH - 1} kingfisher`]);
  });
});
