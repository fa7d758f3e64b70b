import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, framesOf, rewriteEveryRecord } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';

/**
 * Reasonix 1.38.11 decodes every record of a log into one Go struct: keys in any case, `null` as the zero
 * value (which its checks may then refuse), a field of the wrong type refused whatever the record's type,
 * times parsed by Go's RFC 3339 layout. Each edit is applied to every record of its type and every batch
 * signed again, so only what the records say is judged; rxstore's verdict is Reasonix's.
 */
const source = fixture('plain-chat');

type Edit = (text: string) => string;
const field =
  (key: string, value: string): Edit =>
  (text) =>
    text.replace(new RegExp(`"${key}":("[^"]*"|[^,}]*)`), `"${key}":${value}`);
const renamed =
  (key: string, to: string): Edit =>
  (text) =>
    text.replace(`"${key}":`, `"${to}":`);
const added =
  (json: string): Edit =>
  (text) =>
    text.replace('{', `{${json},`);
const on =
  (type: 'begin' | 'event' | 'end', edit: Edit): Edit =>
  (text) =>
    text.includes(`"recordType":"batch/${type}"`) ? edit(text) : text;

const cases: [string, Edit][] = [
  ['a begin whose createdAt is null', on('begin', field('createdAt', 'null'))],
  [
    'a begin whose createdAt has a comma before the fraction',
    on('begin', field('createdAt', '"2026-11-30T06:48:48,5Z"')),
  ],
  ['a begin whose createdAt has an hour of one digit', on('begin', field('createdAt', '"2026-11-30T6:48:48Z"'))],
  ['a begin whose createdAt has an offset of 24 hours', on('begin', field('createdAt', '"2026-11-30T06:48:48+24:00"'))],
  ['a begin whose createdAt is 30 February', on('begin', field('createdAt', '"2026-02-30T06:48:48Z"'))],
  ['a begin whose createdAt has no seconds', on('begin', field('createdAt', '"2026-11-30T06:48Z"'))],
  // Go parses a time's text as written, its escapes not undone.
  ['a begin whose createdAt holds an escape', on('begin', field('createdAt', '"2026-11-30T06:48:48\\u002e5Z"'))],
  ['an end whose CreatedAt holds an escaped digit', on('end', field('createdAt', '"20\\u00326-11-30T06:48:48Z"'))],
  [
    'a begin whose commitId holds an escape',
    on('begin', (text) => text.replace('"commitId":"', '"commitId":"\\u0063')),
  ],
  ['records holding a key createdAt.x with an escape', added('"createdAt.x":"\\u0030"')],
  [
    'a begin with FirstSeq and COMMITID',
    on('begin', (text) => renamed('commitId', 'COMMITID')(renamed('firstSeq', 'FirstSeq')(text))),
  ],
  [
    'a begin with RecordType and Codec',
    on('begin', (text) => renamed('codec', 'Codec')(renamed('recordType', 'RecordType')(text))),
  ],
  ['a begin whose turnId is null', on('begin', field('turnId', 'null'))],
  ['a begin whose firstSeq is null', on('begin', field('firstSeq', 'null'))],
  ['a begin whose schemaVersion is null', on('begin', field('schemaVersion', 'null'))],
  ['a begin whose firstSeq is 1.5', on('begin', field('firstSeq', '1.5'))],
  ['a begin holding a sha256 that is a number', on('begin', added('"sha256":1'))],
  ['a begin holding an event that is a string', on('begin', added('"event":"x"'))],
  ['an event record whose createdAt is null', on('event', field('createdAt', 'null'))],
  ['an event record with Event and SEQ', on('event', (text) => renamed('seq', 'SEQ')(renamed('event', 'Event')(text)))],
  ['an event record holding a firstSeq that is a string', on('event', added('"firstSeq":"x"'))],
  ['an event whose optional is null', on('event', (text) => text.replace('"event":{', '"event":{"optional":null,'))],
  ['an event whose id is null', on('event', field('id', 'null'))],
  [
    'an event whose payloadRef is null',
    on('event', (text) => text.replace('"event":{', '"event":{"payloadRef":null,')),
  ],
  [
    'an event whose payloadRef has no digest',
    on('event', (text) => text.replace(/"payload":"[^"]*"/, '"payloadRef":{"bytes":70000}')),
  ],
  [
    'an event whose payloadRef has an empty digest',
    on('event', (text) => text.replace(/"payload":"[^"]*"/, '"payloadRef":{"digest":"","bytes":70000}')),
  ],
  // payloadRef.bytes is an int64: a ref Go decodes, then sets nil, leaves nothing to check.
  [
    'an event whose payloadRef of -1 bytes is then null',
    on('event', (text) =>
      text.replace('"event":{', `"event":{"payloadRef":{"digest":"${'a'.repeat(64)}","bytes":-1},"payloadRef":null,`),
    ),
  ],
  [
    'an event whose payloadRef of 2^63 bytes is then null',
    on('event', (text) =>
      text.replace(
        '"event":{',
        `"event":{"payloadRef":{"digest":"${'a'.repeat(64)}","bytes":9223372036854775808},"payloadRef":null,`,
      ),
    ),
  ],
  [
    'an event whose payloadRef has -1 bytes',
    on('event', (text) => text.replace(/"payload":"[^"]*"/, `"payloadRef":{"digest":"${'a'.repeat(64)}","bytes":-1}`)),
  ],
  ['an end whose createdAt is null', on('end', field('createdAt', 'null'))],
  ['an end with FIRSTSEQ', on('end', renamed('firstSeq', 'FIRSTSEQ'))],
  ['an end whose commitId is null', on('end', field('commitId', 'null'))],
  ['an end holding a turnId that is a number', on('end', added('"turnId":1'))],
  [
    'a begin whose eventCount is written with a fraction',
    on('begin', (text) => text.replace(/"eventCount":(\d+)/, '"eventCount":$1.0')),
  ],
  ['an event whose seq is written with an exponent', on('event', (text) => text.replace(/"seq":(\d+)/, '"seq":$1e0'))],
  [
    'an end whose firstSeq is written with a fraction',
    on('end', (text) => text.replace(/"firstSeq":(\d+)/, '"firstSeq":$1.00')),
  ],
  ['records holding an unknown key of 1.0', added('"whatever":1.0')],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('the fields of every record, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s: rxstore says what Reasonix does', async (_, edit) => {
    const dir = await copySession(source.dir);
    // An edit that matched nothing would compare two readings of the fixture as it is.
    expect((await framesOf(dir)).some((frame) => edit(frame.raw.toString('utf8')) !== frame.raw.toString('utf8'))).toBe(
      true,
    );
    await rewriteEveryRecord(dir, edit);
    const read = await readSession(dir, { caches: false });
    const reasonix = await reasonixVerdict(dir, source.workspace);
    expect(read.status, `${reasonix.error}\n${read.problems.map((problem) => problem.message).join('\n')}`).toBe(
      reasonix.status,
    );
  });
});
