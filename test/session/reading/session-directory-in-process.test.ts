// What a session's manifest and header say of it, read in process: the verdicts Reasonix 1.38.11 gives in
// test/reasonix/reads/header-matches-reasonix and test/cli/cli-ls-where (a draft), held without a Reasonix run, so the mutation
// run can judge the reader by them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

const source = fixture('plain-chat');
const header = (fields: Record<string, unknown>) =>
  JSON.stringify({
    schemaVersion: 1,
    sessionId: source.id,
    createdAt: '2026-11-30T06:48:48.5Z',
    origin: 'new',
    ...fields,
  });

describe('the session directory, in process', () => {
  it('a manifest without storageRevision is a draft: opened, with a warning that Reasonix imports it under a new id', async () => {
    const dir = await copySession(source.dir);
    const manifestPath = join(dir, 'manifest.json');
    const { storageRevision: _, ...draft } = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(manifestPath, JSON.stringify(draft));
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('ok');
    expect(read.problems).toEqual([
      {
        code: 'RX_UNPUBLISHED_DRAFT',
        severity: 'warning',
        message:
          'manifest has no storageRevision: Reasonix would import this draft under a new id instead of resuming it',
        data: { file: manifestPath },
      },
    ]);
  });

  it.each([
    [
      'schemaVersion 2',
      header({ schemaVersion: 2 }),
      'unsupported',
      'RX_UNSUPPORTED_VERSION',
      'unsupported session storage version: header schemaVersion 2',
    ],
    [
      "another session's id",
      header({ sessionId: 'other' }),
      'damaged',
      'RX_HEADER_INVALID',
      'invalid session header: sessionId "other"',
    ],
    ['schemaVersion 1', header({}), 'ok', undefined, undefined],
  ])('header.json with %s', async (_name, text, status, code, message) => {
    const dir = await copySession(source.dir);
    await writeFile(join(dir, 'header.json'), text);
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe(status);
    if (code) expect(read.refusal).toMatchObject({ code, message, data: { file: join(dir, 'header.json') } });
    else expect(read.problems).toEqual([]);
  });
});
