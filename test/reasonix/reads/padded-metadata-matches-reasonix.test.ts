// A session's metadata file (manifest.json here; any JSON file rxstore reads of a store) that is valid JSON followed by white space past the
// 16 MiB rxstore reads of one: Reasonix 1.38.11 reads it whole, passes over the padding and goes on with the
// session. rxstore reads the JSON before the padding, with memory bounded by its bound, and says the same. JSON
// itself past that bound is rxstore's limit, never a verdict: RX_TOO_LARGE.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { readJsonFile } from '../../../src/session/reading/read-json-file.js';
import { ManifestSchema } from '../../../src/session/reading/manifest.js';
import { StorageIdentitySchema } from '../../../src/session/reading/storage-identity.js';
import { fixture } from '../../support/fixtures.js';
import { resumeCheck } from '../../support/reasonix/resume-check.js';
import { layForResume, reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';

const source = fixture('titled');
const PADDING = 17 * 1024 * 1024;

describe.skipIf(!reasonixBinary())(
  reasonixTitle('metadata padded with white space past 16 MiB, judged by Reasonix 1.38.11'),
  () => {
    const cases: [string, Buffer, 'ok' | 'damaged'][] = [
      ['white space', Buffer.alloc(PADDING, ' \t\r\n'), 'ok'],
      // Go's decoder meets the character after the value: Reasonix refuses the session.
      ['white space, then a character', Buffer.concat([Buffer.alloc(PADDING, ' '), Buffer.from('x')]), 'damaged'],
      ['NUL bytes', Buffer.alloc(PADDING), 'damaged'],
    ];
    it.concurrent.each(cases)(
      'a manifest followed by %s: rxstore says what Reasonix does',
      async (_, padding, expected) => {
        const home = await tempDir('rxstore-padded-');
        const dir = await layForResume(source.dir, home, source.workspace);
        await appendFile(join(dir, 'manifest.json'), padding);
        const read = await readSession(dir, { caches: false });
        expect(read.status, read.problems.map((problem) => problem.message).join('\n')).toBe(expected);
        const run = await resumeCheck(home, source.workspace, basename(dir));
        expect(run.code === 0 ? 'ok' : 'damaged', run.stderr).toBe(expected);
      },
    );
  },
);

describe('a metadata file larger than rxstore reads', () => {
  it('is read up to its padding, whatever file it is (a storage identity here)', async () => {
    const dir = await tempDir('rxstore-padded-json-');
    const identity = join(dir, 'storage.identity.json');
    const text = await readFile(join(source.dir, 'storage.identity.json'), 'utf8');
    await writeFile(identity, Buffer.concat([Buffer.from(text), Buffer.alloc(PADDING, '\n ')]));
    const read = await readJsonFile(identity, StorageIdentitySchema);
    expect(read.state === 'ok' && read.text).toBe(text.trimEnd());
  });

  it('is RX_TOO_LARGE when its JSON itself is past the bound, not a verdict on the file', async () => {
    const dir = await tempDir('rxstore-large-json-');
    const manifest = join(dir, 'manifest.json');
    const written = JSON.parse(await readFile(join(source.dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(manifest, JSON.stringify({ ...written, padding: 'x'.repeat(PADDING) }));
    const read = await readJsonFile(manifest, ManifestSchema);
    expect(read.state).toBe('unreadable');
    expect(read.state === 'unreadable' && read.error.code).toBe('RX_TOO_LARGE');
  });
});
