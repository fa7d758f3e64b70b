import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { cutWholeBatches, resumeCopy, resumedOnce } from '../../support/reasonix/recovery-cache.js';

/**
 * `storage.identity.json` is a Go struct to Reasonix 1.38.11, and it decides whether the recovery cache still
 * speaks for the log. With the log cut one batch behind the cache, Reasonix refuses the session while the
 * identity stands, and opens it once the identity is one Go cannot decode (it mints a new one, which retires
 * the cache). Keys in another case and `null` decode: the identity stands. rxstore's verdict is Reasonix's.
 */
type Edit = (text: string) => string;
const cases: [string, Edit][] = [
  ['as Reasonix wrote it', (text) => text],
  ['its time written with an escape', (text) => text.replace(/"createdAt":"([^".]*)\./, '"createdAt":"$1\\u002e')],
  ['its time not RFC 3339', (text) => text.replace(/"createdAt":"[^"]*"/, '"createdAt":"yesterday"')],
  ['its version written 1.0', (text) => text.replace('"version":1', '"version":1.0')],
  [
    'its keys in another case',
    (text) =>
      text
        .replace('"sessionId"', '"SessionId"')
        .replace('"generation"', '"Generation"')
        .replace('"logPrefixDigest"', '"LogPrefixDigest"'),
  ],
  ['its log prefix null', (text) => text.replace(/"logPrefixDigest":"[^"]*"/, '"logPrefixDigest":null')],
  ['its generation null', (text) => text.replace(/"generation":"[^"]*"/, '"generation":null')],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle('a storage identity over a recovery cache ahead of the log, judged by Reasonix 1.38.11'),
  () => {
    it.concurrent.each(cases)('%s', async (_, edit) => {
      const session = await resumedOnce();
      try {
        await cutWholeBatches(session.dir, 1);
        const path = join(session.dir, 'storage.identity.json');
        const text = await readFile(path, 'utf8');
        // An edit that matched nothing would judge the identity as it was.
        if (edit !== cases[0]![1]) expect(edit(text)).not.toBe(text);
        await writeFile(path, edit(text));
        const read = await readSession(session.dir);
        const reasonix = await resumeCopy(session);
        expect(read.status === 'ok', `${reasonix.said}\n${read.problems.map((p) => p.message).join('\n')}`).toBe(
          reasonix.opens,
        );
        if (!reasonix.opens) expect(read.refusal).toMatchObject({ code: 'RX_RECOVERY_CACHE_AHEAD' });
      } finally {
        await rm(session.home, { recursive: true, force: true });
      }
    });
  },
);
