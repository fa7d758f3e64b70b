import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';

/**
 * `header.json` (written by the desktop app and `serve`) is a Go struct to Reasonix 1.38.11: keys in any case,
 * `null` as the zero value, numbers as written; then its own checks. rxstore's verdict on each is Reasonix's.
 */
const source = fixture('plain-chat');
const header = (fields: string) =>
  `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", ${fields}}`;

const cases: [string, string][] = [
  ['a valid header', header('"cwd": "/w", "origin": "new"')],
  ['cwd null', header('"cwd": null, "origin": "new"')],
  [
    'keys in another case',
    `{"SchemaVersion": 1, "SESSIONID": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", "Origin": "new"}`,
  ],
  ['parentSessionId null', header('"parentSessionId": null, "origin": "fork"')],
  [
    'schemaVersion written 1.0',
    `{"schemaVersion": 1.0, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", "origin": "new"}`,
  ],
  [
    'schemaVersion null',
    `{"schemaVersion": null, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", "origin": "new"}`,
  ],
  [
    'schemaVersion 2',
    `{"schemaVersion": 2, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", "origin": "new"}`,
  ],
  [
    "another session's id",
    `{"schemaVersion": 1, "sessionId": "other", "createdAt": "2026-11-30T06:48:48.5Z", "origin": "new"}`,
  ],
  ['an origin Reasonix does not write', header('"origin": "copied"')],
  [
    'createdAt holding an escape, which Go parses as written',
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48\\u002e5Z", "origin": "new"}`,
  ],
  [
    "createdAt Go's zero time",
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "0001-01-01T00:00:00Z", "origin": "new"}`,
  ],
  ['cwd a number', header('"cwd": 1, "origin": "new"')],
  // Go's zero time is an instant, not a text: the first day of year 1 at another hour or offset is another.
  [
    'createdAt on the first day of year 1, at another offset',
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "0001-01-01T00:00:00+01:00", "origin": "new"}`,
  ],
  [
    'createdAt on the first day of year 1, at five',
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "0001-01-01T05:00:00Z", "origin": "new"}`,
  ],
  [
    'createdAt the zero instant written at an offset',
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "0000-12-31T23:00:00-01:00", "origin": "new"}`,
  ],
  [
    'createdAt the zero instant with nine zeros of fraction',
    `{"schemaVersion": 1, "sessionId": "${source.id}", "createdAt": "0001-01-01T00:00:00.000000000Z", "origin": "new"}`,
  ],
  ['no createdAt (the zero time)', `{"schemaVersion": 1, "sessionId": "${source.id}", "origin": "new"}`],
  // The version is checked before the values: an unsupported version whatever they hold.
  [
    'schemaVersion 2 with an origin Reasonix does not write',
    `{"schemaVersion": 2, "sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z", "origin": "zzz"}`,
  ],
  ['schemaVersion 2 with no createdAt', `{"schemaVersion": 2, "sessionId": "${source.id}", "origin": "new"}`],
  ['no schemaVersion and no origin', `{"sessionId": "${source.id}", "createdAt": "2026-11-30T06:48:48.5Z"}`],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('header.json, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s: rxstore says what Reasonix does', async (_, text) => {
    const dir = await copySession(source.dir);
    await writeFile(join(dir, 'header.json'), text);
    const read = await readSession(dir, { caches: false });
    const reasonix = await reasonixVerdict(dir, source.workspace);
    expect(read.status, `${reasonix.error}\n${read.problems.map((problem) => problem.message).join('\n')}`).toBe(
      reasonix.status,
    );
    // A number Go refuses for the version is refused in its words, the type named as Go names it.
    if (text.includes('"schemaVersion": 1.0')) {
      expect(reasonix.error).toContain('cannot unmarshal number 1.0 into Go struct field');
      expect(reasonix.error).toMatch(/of type int(?!64)/);
      expect(read.problems.map((problem) => problem.message).join('\n')).toMatch(
        /schemaVersion: cannot unmarshal number 1\.0 into Go value of type int$/m,
      );
    }
  });
});
