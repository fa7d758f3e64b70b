import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WriterOwnedError } from '../../../src/errors/index.js';
import { readSessionEvents } from '../../../src/session/reading/read-events.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { acquireWriterLocks, writerLockHolder } from '../../../src/session/reading/writer-locks.js';
import { appendBatch, copySession, endFrames, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { drain } from '../../support/drain.js';

const plain = fixture('plain-chat');
const withRefs = fixture('payload-ref');

describe('metadata files that are not what Reasonix writes', () => {
  it('a manifest that is a FIFO, a directory or far too large is invalid, named so, and never waited on or read whole', async () => {
    const cases: [string, (path: string) => Promise<void>, string][] = [
      ['fifo', async (path) => void execFileSync('mkfifo', [path]), 'invalid manifest: not a regular file'],
      ['directory', async (path) => mkdir(path), 'invalid manifest: not a regular file'],
      [
        'huge',
        async (path) => {
          await writeFile(path, '');
          await truncate(path, 16 * 1024 * 1024 + 1);
        },
        // Zero bytes, whose first is no JSON whatever follows: only the first 16 MiB are read to say so.
        'invalid manifest: not JSON (invalid character U+0000 looking for beginning of value)',
      ],
    ];
    for (const [, make, message] of cases) {
      const dir = await copySession(plain.dir);
      const path = join(dir, 'manifest.json');
      await rm(path);
      await make(path);
      const read = await readSession(dir, { caches: false });
      expect(read.status).toBe('damaged');
      expect(read.problems).toEqual([
        { code: 'RX_MANIFEST_INVALID', severity: 'error', message, data: { file: path } },
      ]);
    }
    // Exactly the limit is still read (and here is not JSON).
    const dir = await copySession(plain.dir);
    await writeFile(join(dir, 'manifest.json'), '');
    await truncate(join(dir, 'manifest.json'), 16 * 1024 * 1024);
    expect((await readSession(dir, { caches: false })).problems[0]!.message).toMatch(/^invalid manifest: .*JSON/);
  });

  it('a manifest the system will not let be read (a symlink loop) is a file-system error naming it, never a verdict on the session', async () => {
    const dir = await copySession(plain.dir);
    const path = join(dir, 'manifest.json');
    await rm(path);
    await symlink(path, path);
    const error = await readSession(dir).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: 'RX_FILE_SYSTEM', data: { file: path, errno: 'ELOOP' } });
    expect((await drain(readSessionEvents(dir))).error).toMatchObject({ code: 'RX_FILE_SYSTEM', data: { file: path } });
  });

  /** A copy of the session whose manifest is `edit`ed (an edit that changes nothing fails the test), read. */
  async function withManifest(edit: (text: string) => string) {
    const dir = await copySession(plain.dir);
    const path = join(dir, 'manifest.json');
    const text = await readFile(path, 'utf8');
    expect(edit(text)).not.toBe(text);
    await writeFile(path, edit(text));
    return { path, read: await readSession(dir, { caches: false }) };
  }

  // Reasonix's verdict on each is in manifest-matches-reasonix. JSON.parse takes the first two; Go reads an absent codec as "".
  it.each([
    {
      what: 'a byte-order mark before it',
      edit: (text: string) => `\ufeff${text}`,
      status: 'damaged',
      code: 'RX_MANIFEST_INVALID',
      severity: 'error',
      message: /^invalid manifest: starts with a byte-order mark \(U\+FEFF\), which Reasonix's JSON reader refuses$/,
    },
    {
      what: 'its storageRevision written 3.0',
      edit: (text: string) => text.replace(/"storageRevision": (\d+)/, '"storageRevision": $1.0'),
      status: 'damaged',
      code: 'RX_MANIFEST_INVALID',
      severity: 'error',
      message: /^invalid manifest: storageRevision: cannot unmarshal number \d+\.0 into Go value of type int(64)?$/,
    },
    {
      what: 'no codec',
      edit: (text: string) => text.replace(/\s*"codec": "[^"]*",/, ''),
      status: 'unsupported',
      code: 'RX_UNSUPPORTED_VERSION',
      severity: 'error',
      message: /^unsupported session storage version: codec , schemaVersion 4$/,
    },
    {
      what: 'a storageRevision of -1',
      edit: (text: string) => text.replace(/"storageRevision": \d+/, '"storageRevision": -1'),
      status: 'unsupported',
      code: 'RX_UNSUPPORTED_VERSION',
      severity: 'error',
      message: /^unsupported session storage version: storageRevision -1$/,
    },
    {
      what: 'a storageRevision of 0 (a draft, which Reasonix imports under a new id)',
      edit: (text: string) => text.replace(/"storageRevision": \d+/, '"storageRevision": 0'),
      status: 'ok',
      code: 'RX_UNPUBLISHED_DRAFT',
      severity: 'warning',
      message:
        /^manifest has no storageRevision: Reasonix would import this draft under a new id instead of resuming it$/,
    },
  ])('a manifest with $what: $code, named so', async ({ edit, status, code, severity, message }) => {
    const { path, read } = await withManifest(edit);
    expect(read.status).toBe(status);
    expect(read.problems).toEqual([{ code, severity, message: expect.stringMatching(message), data: { file: path } }]);
  });

  // Reasonix opens both (blocked-files-match-reasonix): it writes a new identity and rebuilds the index.
  it.each([
    ['storage.identity.json', 'RX_IDENTITY_STALE', 'storage identity cannot be read', 'Reasonix will mint a new one'],
    [
      'events.offset-index.json',
      'RX_OFFSET_INDEX_STALE',
      'offset index cannot be read',
      'it is a cache and will be rebuilt',
    ],
  ])('%s that the system will not let be read (a symlink loop) is a note naming it', async (name, code, what, then) => {
    const dir = await copySession(plain.dir);
    const path = join(dir, name);
    await rm(path);
    await symlink(path, path);
    const read = await readSession(dir);
    expect(read.status).toBe('ok');
    expect(read.problems).toContainEqual({
      code,
      severity: 'note',
      message: `${what} (${path}: too many levels of symbolic links); ${then}`,
      data: { file: path },
    });
  });

  it('what zod found wrong is named by its path inside the file', async () => {
    const dir = await copySession(plain.dir);
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
    // Go's decoding: a value of the wrong JSON type is refused; null, a negative int64 and a source without
    // fields are not (judged by Reasonix in test/reasonix/reads/manifest-matches-reasonix).
    const reasons: [unknown, string][] = [
      [
        { ...manifest, source: { path: 1 } },
        'invalid manifest: source.path: Invalid input: expected string, received number',
      ],
      [
        { ...manifest, writerGeneration: 1.5 },
        'invalid manifest: writerGeneration: expected a whole number a uint64 holds',
      ],
      [
        { ...manifest, inheritedEventCount: -1 },
        'invalid manifest: inheritedEventCount: expected a whole number a uint64 holds',
      ],
      [
        { ...manifest, storageRevision: '3' },
        'invalid manifest: storageRevision: Invalid input: expected number, received string',
      ],
      [{ ...manifest, codec: 4 }, 'invalid manifest: codec: Invalid input: expected string, received number'],
      [
        { ...manifest, contentRoot: 1 },
        'invalid manifest: contentRoot: Invalid input: expected string, received number',
      ],
      [{ ...manifest, createdAt: 1 }, 'invalid manifest: createdAt: Invalid input: expected string, received number'],
      [
        { ...manifest, createdAt: '2026-02-30T00:00:00Z' },
        'invalid manifest: createdAt: parsing time "2026-02-30T00:00:00Z": day out of range',
      ],
      [[], 'invalid manifest: value: Invalid input: expected object, received array'],
    ];
    for (const [value, message] of reasons) {
      await writeFile(manifestPath, JSON.stringify(value));
      expect((await readSession(dir, { caches: false })).problems.map((problem) => problem.message)).toEqual([message]);
    }
    // `null` leaves Go's struct as it was: all zero values, a manifest of no codec (Reasonix: unsupported preview codec "").
    await writeFile(manifestPath, 'null');
    expect((await readSession(dir, { caches: false })).problems.map((problem) => problem.code)).toEqual([
      'RX_UNSUPPORTED_VERSION',
      'RX_MANIFEST_ID',
    ]);
    // A source Reasonix wrote, with its optional fields, and fields rxstore does not know, are kept.
    const source = {
      path: '/elsewhere/log',
      size: 10,
      sha256: 'ab',
      version: 'reasonix.session.linear/v4',
      legacyHeadId: 'h',
      more: true,
    };
    await writeFile(manifestPath, JSON.stringify({ ...manifest, source, kind: 'fork', unknownField: [1] }));
    const read = await readSession(dir, { caches: false });
    expect(read.problems).toEqual([]);
    expect(read.manifest).toEqual({ ...manifest, source, kind: 'fork', unknownField: [1] });
  });

  it('a storage identity or offset index of another shape is a note naming the field', async () => {
    const dir = await copySession(plain.dir);
    const identityPath = join(dir, 'storage.identity.json');
    const indexPath = join(dir, 'events.offset-index.json');
    const identity = JSON.parse(await readFile(identityPath, 'utf8')) as Record<string, unknown>;
    const index = JSON.parse(await readFile(indexPath, 'utf8')) as Record<string, unknown>;
    const notes = async () =>
      (await readSession(dir)).problems.map((problem) => `${problem.severity} ${problem.message}`);

    await writeFile(identityPath, JSON.stringify({ ...identity, version: 2 }));
    await writeFile(indexPath, JSON.stringify({ ...index, entries: [{ firstSequence: 1 }] }));
    expect(await notes()).toEqual([
      'note storage identity is not valid (version: Invalid input: expected 1); Reasonix will mint a new one',
      'note offset index is not valid (entries.0.offset: Invalid input: expected number, received undefined); it is a cache and will be rebuilt',
    ]);
    await writeFile(identityPath, JSON.stringify({ ...identity, generation: 7 }));
    await writeFile(indexPath, JSON.stringify({ ...index, commitCount: -1 }));
    expect(await notes()).toEqual([
      'note storage identity is not valid (generation: Invalid input: expected string, received number); Reasonix will mint a new one',
      'note offset index is not valid (commitCount: Too small: expected number to be >=0); it is a cache and will be rebuilt',
    ]);
    // An identity without the prefix digest names no other log: Reasonix keeps it and its caches
    // (test/reasonix/reads/storage-identity-matches-reasonix); an index with no entries (null, as Go writes an empty list).
    const { logPrefixDigest: _, ...withoutPrefix } = identity;
    await writeFile(identityPath, JSON.stringify({ ...withoutPrefix, extra: 1 }));
    await writeFile(indexPath, JSON.stringify({ ...index, entries: null }));
    expect(await notes()).toEqual([
      'note offset index is stale (the log changed since it was written); it is a cache and will be rebuilt',
    ]);
    // One that names another log's prefix is stale.
    await writeFile(identityPath, JSON.stringify({ ...identity, logPrefixDigest: '0'.repeat(64) }));
    expect(await notes()).toContain(
      'note storage identity does not match this log; Reasonix will mint a new one and drop its caches',
    );
    // Both absent: nothing to note (Reasonix writes them again).
    await rm(identityPath);
    await rm(indexPath);
    expect(await notes()).toEqual([]);
  });
});

describe('where payloadRefs resolve', () => {
  it("a manifest's contentRoot picks the store's shared .content-v1 or the session's own, as Reasonix honours only these two", async () => {
    const whole = await drain(readSessionEvents(withRefs.dir));
    expect(whole.error).toBeUndefined();
    const payloads = whole.items.flatMap((item) => (item.type === 'batch' ? item.value.payloadBytes : []));
    const refs = whole.items.flatMap((item) =>
      item.type === 'batch' ? item.value.batch.events.filter((event) => event.payloadRef) : [],
    );
    expect(refs).toHaveLength(withRefs.counts.payloadRefs);

    // An exported archive keeps its content inside the session directory, and its manifest says so.
    const dir = await copySession(withRefs.dir);
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
    await rename(join(dirname(dir), '.content-v1'), join(dir, '.content-v1'));
    await writeFile(manifestPath, JSON.stringify({ ...manifest, contentRoot: '.content-v1' }));
    const inside = await drain(readSessionEvents(dir));
    expect(inside.error).toBeUndefined();
    expect(inside.items.flatMap((item) => (item.type === 'batch' ? item.value.payloadBytes : []))).toEqual(payloads);
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('ok');
    expect(read.contentFiles.every((file) => file.startsWith(join(dir, '.content-v1')))).toBe(true);

    // Any other contentRoot, or none, is the shared store beside the session: empty here, so the first ref is missing.
    for (const contentRoot of ['../.content-v1', 'elsewhere', undefined]) {
      await writeFile(manifestPath, JSON.stringify({ ...manifest, contentRoot }));
      const { items, error } = await drain(readSessionEvents(dir));
      expect(error).toMatchObject({ code: 'RX_MISSING_CONTENT' });
      expect((error as Error).message).toMatch(/^read v4 event \S+ payload: /);
      expect((error as { data: { file: string } }).data.file.startsWith(join(dirname(dir), '.content-v1'))).toBe(true);
      expect(items.length).toBeGreaterThan(0);
    }
    // A manifest that cannot be read leaves the default too.
    await writeFile(manifestPath, '{');
    expect((await drain(readSessionEvents(dir))).error).toMatchObject({ code: 'RX_MISSING_CONTENT' });
  });

  it('a content object with other bytes is corrupt content, named with the event that refers to it', async () => {
    const dir = await copySession(withRefs.dir);
    const read = await readSession(dir, { caches: false });
    const object = read.contentFiles.find((file) => file.includes('/objects/'))!;
    const bytes = await readFile(object);
    bytes[0]! ^= 0x01;
    await writeFile(object, bytes);
    const { items, error } = await drain(readSessionEvents(dir));
    expect(error).toMatchObject({
      code: 'RX_CORRUPT_CONTENT',
      data: { file: object, eventId: expect.any(String), sequence: expect.any(Number) },
    });
    expect((error as Error).message).toMatch(/^read v4 event \S+ payload: /);
    expect(items.every((item) => item.type === 'batch')).toBe(true);
    const damaged = await readSession(dir, { caches: false });
    expect(damaged.refusal?.code).toBe('RX_CORRUPT_CONTENT');
    expect(damaged.status).toBe('damaged');
  });
});

describe('payloads as read', () => {
  it('each payload is parsed when it is JSON; bytes that are not, and an event without any, give no value but keep their bytes', async () => {
    const dir = await copySession(plain.dir);
    await appendBatch(dir, [
      { kind: 'rxstore.test/opaque', payloadJson: Buffer.from('not json {'), optional: true, required: false },
      { kind: 'rxstore.test/empty', optional: true, required: false },
      { kind: 'rxstore.test/value', payload: { answer: 42, text: '你好' }, optional: true, required: false },
    ]);
    const { items, error } = await drain(readSessionEvents(dir));
    expect(error).toBeUndefined();
    const last = items.at(-1)!;
    if (last.type !== 'batch') throw new Error('expected a batch last');
    expect(last.value.batch.events.map((event) => event.kind)).toEqual([
      'rxstore.test/opaque',
      'rxstore.test/empty',
      'rxstore.test/value',
    ]);
    expect(last.value.payloads).toEqual([undefined, undefined, { answer: 42, text: '你好' }]);
    expect(last.value.payloadBytes.map((bytes) => bytes?.toString('utf8'))).toEqual([
      'not json {',
      undefined,
      '{"answer":42,"text":"你好"}',
    ]);
    // Reasonix skips optional kinds it does not know: the session opens.
    expect((await readSession(dir, { caches: false })).status).toBe('ok');
  });
});

describe('the offset index of a log between 4 and 8 KiB', () => {
  it('is bound to the first 4096 bytes and the last (size − 4096), as docs/format.md §9.4 says', async () => {
    const dir = await copySession(plain.dir);
    const ends = await endFrames(dir);
    const end = ends.map((frame) => frame.offset + frame.bytes).find((offset) => offset > 4096 && offset < 8192)!;
    expect(end).toBeDefined();
    await truncate(logOf(dir), end);
    const log = await readFile(logOf(dir));
    const { mtimeNs } = await stat(logOf(dir), { bigint: true });
    const identity = (tail: number) =>
      createHash('sha256')
        .update(`${log.length}:${mtimeNs}:`)
        .update(log.subarray(0, 4096))
        .update(log.subarray(log.length - tail))
        .digest('hex');
    const indexPath = join(dir, 'events.offset-index.json');
    const write = (logIdentity: string) =>
      writeFile(
        indexPath,
        `{"codec":"reasonix.session.offset-index/v1","logSize":${log.length},"logModTimeNs":${mtimeNs},"logIdentity":"${logIdentity}","lastSequence":1,"commitCount":1,"entries":null}`,
      );
    await write(identity(log.length - 4096));
    expect((await readSession(dir)).problems).toEqual([]);
    await write(identity(4096));
    expect((await readSession(dir)).problems.map((problem) => problem.code)).toEqual(['RX_OFFSET_INDEX_STALE']);
  });
});

describe("Reasonix's writer locks", () => {
  it('a lock file that is not a regular file refuses the writer, and the lock already taken is let go', async () => {
    const dir = await copySession(plain.dir);
    await rm(join(dir, 'writer.lock'));
    execFileSync('mkfifo', [join(dir, 'writer.lock')]);
    await expect(acquireWriterLocks(dir)).rejects.toMatchObject({ code: 'RX_NOT_REGULAR_FILE' });
    // The outer lock, taken first, was released: another writer may take it.
    const outer = join(dirname(dir), `.${plain.id}.ownership.lock`);
    expect(await writerLockHolder(dir)).toBeUndefined();
    await rm(join(dir, 'writer.lock'));
    const locks = await acquireWriterLocks(dir);
    expect(await writerLockHolder(dir)).toBe(outer);
    await locks.release();
  });

  it('a second writer is refused at once, naming the lock held; once released the locks are free again', async () => {
    const dir = await copySession(plain.dir);
    const outer = join(dirname(dir), `.${plain.id}.ownership.lock`);
    expect(await writerLockHolder(dir)).toBeUndefined();
    const first = await acquireWriterLocks(dir);
    try {
      expect(await writerLockHolder(dir)).toBe(outer);
      const refused = await acquireWriterLocks(dir).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(WriterOwnedError);
      expect(refused).toMatchObject({
        code: 'RX_WRITER_OWNED',
        message: `session writer is owned by another runtime: ${plain.id}`,
        data: { file: outer },
      });
    } finally {
      await first.release();
    }
    expect(await writerLockHolder(dir)).toBeUndefined();
    const again = await acquireWriterLocks(dir);
    await again.release();
    // Releasing twice is harmless.
    await again.release();
  });
});

describe('where a session directory is expected', () => {
  it('a path through a regular file has no manifest: the session is refused as missing one, never a file system error', async () => {
    const dir = await copySession(plain.dir);
    // The session's log given where its directory belongs: every metadata path runs through a file.
    const read = await readSession(logOf(dir), { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.problems.map((problem) => problem.code)).toContain('RX_MANIFEST_MISSING');
  });
});
