// createSession as a library user sees it: the manifest and files it lays down, the ids it refuses,
// and that a session is never written over or left half made.
import { readdir, readFile, writeFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, SessionExistsError } from '../../../src/errors/index.js';
import { createSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { sampleBatches } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

const title = (text: string) => [
  { operationId: 'title', events: [{ kind: 'session/title', payload: { title: text } }] },
];

describe('createSession', () => {
  it('lays down the manifest Reasonix writes, the given files, and the batches in sequence', async () => {
    const storeDir = join(await tempDir(), 'not', 'yet', 'sessions-v4');
    const source = { path: '/somewhere/old.jsonl', size: 12, sha256: 'a'.repeat(64), version: 'jsonl' };
    const created = await createSession({
      storeDir,
      sessionId: 'migrated-1',
      createdAt: new Date('2026-03-04T05:06:07.890Z'),
      source,
      inheritedEventCount: 7,
      batches: sampleBatches(),
      files: [
        { path: 'legacy/old.jsonl', bytes: Buffer.from('{"role":"user"}\n') },
        { path: 'legacy/deeper/old.jsonl.meta', bytes: Buffer.from('{}') },
      ],
    });
    expect(created.id).toBe('migrated-1');
    expect(created.dir).toBe(join(storeDir, 'migrated-1'));
    expect(JSON.parse(await readFile(join(created.dir, 'manifest.json'), 'utf8'))).toEqual({
      schemaVersion: 4,
      codec: 'reasonix.session.linear/v4',
      storageRevision: 3,
      contentRoot: '../.content-v1',
      sessionId: 'migrated-1',
      createdAt: '2026-03-04T05:06:07.89Z',
      writerGeneration: 1,
      inheritedEventCount: 7,
      source,
    });
    expect(await readFile(join(created.dir, 'legacy', 'old.jsonl'), 'utf8')).toBe('{"role":"user"}\n');
    expect(await readFile(join(created.dir, 'legacy', 'deeper', 'old.jsonl.meta'), 'utf8')).toBe('{}');
    // The batches follow one another: sequences from 1, each batch where the last ended.
    expect(created.batches.map((batch) => [batch.firstSeq, batch.eventCount, batch.writerGeneration])).toEqual([
      [1, 2, 1],
      [3, 4, 1],
      [7, 4, 1],
    ]);
    expect(created.batches[0]!.offset).toBe(0);
    expect(created.batches[1]!.offset).toBe(created.batches[0]!.end);
    expect(created.batches[2]!.offset).toBe(created.batches[1]!.end);
    const read = await readSession(created.dir);
    expect(read.status).toBe('ok');
    expect(read.durableEnd).toBe(created.batches[2]!.end);
    expect(read.lastSequence).toBe(10);
    expect(read.payloadRefs).toBe(1);
    // Only the session and the content store: the staging directory was renamed, not left behind.
    expect((await readdir(storeDir)).sort()).toEqual(['.content-v1', 'migrated-1']);
  });

  it('mints a 32-hex-digit id, and leaves out what was not given', async () => {
    const storeDir = await tempDir();
    const created = await createSession({
      storeDir,
      createdAt: '2026-01-01T00:00:00.5Z',
      inheritedEventCount: 0,
      batches: title('x'),
    });
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    const manifest = JSON.parse(await readFile(join(created.dir, 'manifest.json'), 'utf8'));
    expect(manifest.createdAt).toBe('2026-01-01T00:00:00.5Z');
    expect(Object.keys(manifest)).toEqual([
      'schemaVersion',
      'codec',
      'storageRevision',
      'contentRoot',
      'sessionId',
      'createdAt',
      'writerGeneration',
    ]);
    expect(await readdir(storeDir)).toEqual([created.id]);
  });

  it('refuses ids that cannot name a session directory (or its staging directory), with one clear line, writing nothing', async () => {
    const storeDir = await tempDir();
    for (const id of [
      '',
      '.hidden',
      'ends-with.',
      'a/b',
      'x/abc',
      'ab/c',
      'a\\b',
      'nul\u0000',
      'tab\tin',
      '..',
      'x'.repeat(256),
      '語'.repeat(86),
    ]) {
      const error = await createSession({ storeDir, sessionId: id, batches: title('x') }).catch(
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(id)).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toBe(`${JSON.stringify(id)} is not a valid session id`);
    }
    expect(await readdir(storeDir)).toEqual([]);
    // The longest id a file name of 255 bytes holds (its staging name is short whatever the id), and dots inside one, are fine.
    for (const id of ['x'.repeat(255), '語'.repeat(85), 'a.b.c'])
      expect((await createSession({ storeDir, sessionId: id, batches: title('x') })).id).toBe(id);
  });

  it('refuses a session that is there before it writes anything, content objects included', async () => {
    const storeDir = await tempDir();
    await createSession({ storeDir, sessionId: 'taken', batches: title('first') });
    const before = await readdir(storeDir, { recursive: true });
    // These batches hold a payload large enough for the content store.
    await expect(createSession({ storeDir, sessionId: 'taken', batches: sampleBatches() })).rejects.toBeInstanceOf(
      SessionExistsError,
    );
    expect(await readdir(storeDir, { recursive: true })).toEqual(before);
  });

  it('lays down files at the top of the session and deep inside it, in a directory only its owner may enter', async () => {
    const storeDir = await tempDir();
    const created = await createSession({
      storeDir,
      sessionId: 'with-files',
      batches: title('files'),
      files: [
        { path: 'notes.txt', bytes: Buffer.from('top') },
        { path: 'a/b/c/deep.txt', bytes: Buffer.from('deep') },
      ],
    });
    expect(await readFile(join(created.dir, 'notes.txt'), 'utf8')).toBe('top');
    expect(await readFile(join(created.dir, 'a', 'b', 'c', 'deep.txt'), 'utf8')).toBe('deep');
    for (const dir of [created.dir, join(created.dir, 'a'), join(created.dir, 'a', 'b', 'c')])
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('never writes over a session: one that is there is refused, and its files stay as they were', async () => {
    const storeDir = await tempDir();
    const first = await createSession({ storeDir, sessionId: 'taken', batches: title('first') });
    const log = await readFile(join(first.dir, 'events.frames'));
    const error = await createSession({ storeDir, sessionId: 'taken', batches: title('second') }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SessionExistsError);
    expect(error).toMatchObject({
      code: 'RX_SESSION_EXISTS',
      message: `session already exists: ${first.dir}`,
      data: { file: first.dir },
    });
    expect(await readFile(join(first.dir, 'events.frames'))).toEqual(log);
    expect((await readSession(first.dir)).projection.title).toBe('first');
    // Even a plain file with that name is not written over.
    await writeFile(join(storeDir, 'a-file'), 'x');
    await expect(createSession({ storeDir, sessionId: 'a-file', batches: title('x') })).rejects.toBeInstanceOf(
      SessionExistsError,
    );
  });

  it('two creations of one id at once: one session is published, the other refused, and no staging directory is left', async () => {
    const storeDir = await tempDir();
    const results = await Promise.allSettled([
      createSession({ storeDir, sessionId: 'raced', batches: title('one') }),
      createSession({ storeDir, sessionId: 'raced', batches: title('two') }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((result) => result.status === 'rejected')!;
    expect(refused.reason).toMatchObject({
      code: 'RX_SESSION_EXISTS',
      message: `session already exists: ${join(storeDir, 'raced')}`,
    });
    expect(await readdir(storeDir)).toEqual(['raced']);
    expect(['one', 'two']).toContain((await readSession(join(storeDir, 'raced'))).projection.title);
  });

  it('a creation that fails midway leaves no session and no staging directory', async () => {
    const storeDir = await tempDir();
    await mkdir(join(storeDir, '.content-v1'));
    const error = await createSession({
      storeDir,
      sessionId: 'half',
      batches: title('x'),
      // The second file needs a directory where the first is a file.
      files: [
        { path: 'legacy', bytes: Buffer.from('x') },
        { path: 'legacy/inside', bytes: Buffer.from('y') },
      ],
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(await readdir(storeDir)).toEqual(['.content-v1']);
  });
});
