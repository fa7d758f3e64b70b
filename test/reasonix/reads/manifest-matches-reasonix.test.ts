import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { listSessionDirs, reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { reasonixVerdict } from '../../support/reasonix/reasonix-verdict.js';

/**
 * `manifest.json` is a Go struct to Reasonix 1.38.11: keys in any case, `null` as the zero value, numbers
 * of the field's type, `createdAt` parsed by Go's RFC 3339 layout and written back when the session is
 * opened, keys it does not know ignored. rxstore's verdict on each manifest is Reasonix's.
 */
const source = fixture('plain-chat');

const set = (key: string, value: string) => (text: string) =>
  text.replace(new RegExp(`"${key}": [^,\\n]*`), `"${key}": ${value}`);
const renamed = (key: string, to: string) => (text: string) => text.replace(`"${key}"`, `"${to}"`);
const added = (field: string) => (text: string) => text.replace('{', `{${field},`);

const cases: [string, (text: string) => string][] = [
  ['storageRevision null', set('storageRevision', 'null')],
  ['storageRevision -1', set('storageRevision', '-1')],
  ['storageRevision 0 (a draft, imported under a new id)', set('storageRevision', '0')],
  ['contentRoot null', set('contentRoot', 'null')],
  ['createdAt null', set('createdAt', 'null')],
  ['writerGeneration null', set('writerGeneration', 'null')],
  ['inheritedEventCount null', added('"inheritedEventCount": null')],
  ['sessionId absent', (text) => text.replace(/"sessionId": "[^"]*",/, '')],
  ['codec absent', (text) => text.replace(/"codec": "[^"]*",/, '')],
  ['the whole manifest null', () => 'null'],
  [
    'keys in another case',
    (text) =>
      renamed('codec', 'Codec')(renamed('sessionId', 'SessionID')(renamed('schemaVersion', 'SCHEMAVERSION')(text))),
  ],
  [
    'sessionId twice, in another case, the wrong one last',
    (text) => text.replace(/}\s*$/, ',"SESSIONID":"someone-else"}'),
  ],
  ['a source that is null', added('"source": null')],
  ['a source without fields', added('"source": {}')],
  ['a source of negative size and an unknown key', added('"source": {"size": -1, "more": true}')],
  ['a source whose size is a string', added('"source": {"size": "1"}')],
  ['a source that is a list', added('"source": []')],
  ['a kind that is a number (not a field Reasonix has)', added('"kind": 1')],
  ['createdAt with an hour of one digit', set('createdAt', '"2026-11-30T6:48:48Z"')],
  ['createdAt with a comma before the fraction', set('createdAt', '"2026-11-30T06:48:48,5Z"')],
  ['createdAt with a minute of one digit', set('createdAt', '"2026-11-30T06:8:48Z"')],
  ['createdAt with a lower-case t', set('createdAt', '"2026-11-30t06:48:48Z"')],
  ['createdAt without seconds', set('createdAt', '"2026-11-30T06:48Z"')],
  ['createdAt on 30 February', set('createdAt', '"2026-02-30T06:48:48Z"')],
  ['createdAt on 29 February 2100', set('createdAt', '"2100-02-29T06:48:48Z"')],
  ['createdAt at second 60', set('createdAt', '"2026-11-30T06:48:60Z"')],
  [
    'createdAt with an offset of 24 hours (Go reads it, cannot write it back)',
    set('createdAt', '"2026-11-30T06:48:48+24:00"'),
  ],
  ['createdAt with an offset of 05:60', set('createdAt', '"2026-11-30T06:48:48+05:60"')],
  ['createdAt with an offset without a colon', set('createdAt', '"2026-11-30T06:48:48+0530"')],
  ['createdAt that is not a time', set('createdAt', '"yesterday"')],
  // Go's time.Time parses the text between the quotes as written, its escapes not undone.
  ['createdAt with an escaped dot', set('createdAt', '"2026-11-30T06:48:48\\u002e5Z"')],
  [
    'CreatedAt with an escaped Z',
    (text) => renamed('createdAt', 'CreatedAt')(set('createdAt', '"2026-11-30T06:48:48\\u005a"')(text)),
  ],
  ['storageRevision written 3.0', set('storageRevision', '3.0')],
  ['schemaVersion written 4e0', set('schemaVersion', '4e0')],
  ['writerGeneration written 10E-1', set('writerGeneration', '10E-1')],
  ['writerGeneration 2^64, past uint64', set('writerGeneration', '18446744073709551616')],
  ["writerGeneration 2^64 - 1, uint64's largest", set('writerGeneration', '18446744073709551615')],
  ['storageRevision 2^63, past int', set('storageRevision', '9223372036854775808')],
  ['a source size written 1.0', added('"source": {"size": 1.0}')],
  ['an unknown key holding 1.0 and a kind holding 2e0', added('"whatever": 1.0, "kind": 2e0')],
  ['a contentRoot holding the text 3.0', set('contentRoot', '"3.0"')],
  ['a byte-order mark before the manifest', (text) => `\ufeff${text}`],
  [
    'no storageRevision, one under "__proto__" (a draft to Go)',
    (text) => added('"__proto__": {"storageRevision": 3}')(text.replace(/"storageRevision": [^,\n]*,/, '')),
  ],
  ['a "__proto__" that is a list', added('"__proto__": []')],
  ['an unknown key nested 10,000 deep (Go reads it)', added(`"deep": ${'['.repeat(9_999)}${']'.repeat(9_999)}`)],
  ["an unknown key nested 10,001 deep (past Go's limit)", added(`"deep": ${'['.repeat(10_000)}${']'.repeat(10_000)}`)],
  ['an unknown key nested 100,000 deep', added(`"deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('manifest.json, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s: rxstore says what Reasonix does', async (_, edit) => {
    const dir = await copySession(source.dir);
    const path = join(dir, 'manifest.json');
    const text = await readFile(path, 'utf8');
    // An edit that matched nothing would compare two readings of the fixture as it is.
    expect(edit(text)).not.toBe(text);
    await writeFile(path, edit(text));
    const read = await readSession(dir, { caches: false });
    const reasonix = await reasonixVerdict(dir, source.workspace);
    expect(read.status, `${reasonix.error}\n${read.problems.map((problem) => problem.message).join('\n')}`).toBe(
      reasonix.status,
    );
  });
});

/**
 * Whether a manifest is a draft, as Reasonix tells it: it imports a draft into a new session under a
 * new id (two sessions in its store after the run) and goes on in place otherwise (one). A key Go
 * ignores, such as `__proto__`, must lend no field to the manifest.
 */
const draftCases: [string, (text: string) => string, boolean][] = [
  ['storageRevision 3', (text) => text, false],
  ['storageRevision 0', set('storageRevision', '0'), true],
  [
    'no storageRevision, one under "__proto__"',
    (text) => added('"__proto__": {"storageRevision": 3}')(text.replace(/"storageRevision": [^,\n]*,/, '')),
    true,
  ],
  [
    'no storageRevision, one under "constructor"',
    (text) => added('"constructor": {"storageRevision": 3}')(text.replace(/"storageRevision": [^,\n]*,/, '')),
    true,
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('a draft manifest, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(draftCases)(
    '%s: rxstore calls it a draft when Reasonix imports it as one',
    async (_, edit, draft) => {
      const dir = await copySession(source.dir);
      const path = join(dir, 'manifest.json');
      await writeFile(path, edit(await readFile(path, 'utf8')));
      const read = await readSession(dir, { caches: false });
      const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
      const sessions = listSessionDirs(run.home);
      await rm(run.home, { recursive: true, force: true });
      expect(run.code).toBe(0);
      expect(sessions.length === 2).toBe(draft);
      expect(read.status).toBe('ok');
      expect(read.problems.some((problem) => problem.code === 'RX_UNPUBLISHED_DRAFT')).toBe(draft);
    },
  );
});
