import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireWriterLocks } from '../../../src/session/reading/writer-locks.js';
import { MissingContentError } from '../../../src/errors/index.js';
import {
  readSession,
  reasonixRefuses,
  SessionStatusSchema,
  workspaceOf,
  type SessionRead,
} from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession, cutLog, editLog, endFrames, framesOf, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { encodeFrame } from '../../../src/codec/frame.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';

const plain = fixture('plain-chat');

/** Gives a copied log the modification time Reasonix recorded in its offset index, to the nanosecond. */
async function restoreIndexedMtime(dir: string): Promise<void> {
  const index = await readFile(join(dir, 'events.offset-index.json'), 'utf8');
  const ns = /"logModTimeNs":(\d+)/.exec(index)![1]!;
  execFileSync('touch', ['-d', `@${ns.slice(0, -9)}.${ns.slice(-9)}`, logOf(dir)]);
}

/** Copies a session with the ownership lock file Reasonix leaves in the store beside it. */
async function copySessionWithLocks(sessionDir: string): Promise<string> {
  const dir = await copySession(sessionDir);
  const lock = `.${basename(sessionDir)}.ownership.lock`;
  await copyFile(join(dirname(sessionDir), lock), join(dirname(dir), lock));
  return dir;
}

const codes = (read: SessionRead) => read.problems.map((problem) => `${problem.severity} ${problem.code}`);

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
}

async function editManifest(
  dir: string,
  change: (manifest: Record<string, unknown>) => Record<string, unknown>,
): Promise<string> {
  const path = join(dir, 'manifest.json');
  await writeJson(path, change(JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>));
  return path;
}

describe('readSession on sessions the real Reasonix wrote', () => {
  // Sessions whose offset index Reasonix last wrote after the log's last batch (in others it is stale as written).
  it.each(['plain-chat', 'payload-ref', 'cjk-emoji'] as const)(
    '%s: counts what the log holds, and its caches are current once the log has the mtime Reasonix bound them to',
    async (name) => {
      const source = fixture(name);
      const dir = await copySessionWithLocks(source.dir);
      await restoreIndexedMtime(dir);
      const read = await readSession(dir);
      const ends = await endFrames(dir);
      const first = ends[0]!.record as unknown as { firstSeq: number };
      const last = ends.at(-1)!.record as unknown as { firstSeq: number; eventCount: number };
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { writerGeneration: number };

      expect(read.status).toBe('ok');
      expect(read.problems).toEqual([]);
      expect(read.refusal).toBeUndefined();
      expect(read.id).toBe(source.id);
      expect(read.dir).toBe(dir);
      expect(read.manifest).toEqual(manifest);
      expect(read.header).toBeUndefined();
      expect(read.batches).toBe(source.counts.batches);
      expect(read.events.total).toBe(source.counts.events);
      expect({ ...read.events.byKind }).toEqual(source.counts.eventsByKind);
      expect(read.payloadRefs).toBe(source.counts.payloadRefs);
      expect(read.durableEnd).toBe((await stat(logOf(dir))).size);
      expect(read.lastSequence).toBe(last.firstSeq + last.eventCount - 1);
      expect(first.firstSeq).toBe(1);
      expect(read.writerGeneration).toBe(manifest.writerGeneration);
      expect(read.tornTail).toBeNull();
      expect(read.tornEvidence).toEqual([]);
      expect(read.openBy).toBeUndefined();
      expect(read.lockFiles).toEqual([join(dir, 'writer.lock'), join(dirname(dir), `.${source.id}.ownership.lock`)]);
      // The commit times are the batches' own, first and last.
      const begins = (await framesOf(dir)).filter((frame) => frame.record.recordType === 'batch/begin');
      expect(read.firstCommitAt).toBe(begins[0]!.record.createdAt);
      expect(read.lastCommitAt).toBe(begins.at(-1)!.record.createdAt);
      expect(read.firstCommitAt! < read.lastCommitAt!).toBe(true);
      // Every content file a payloadRef resolved to exists in the store's content root, an object and its index each.
      expect(read.contentFiles).toHaveLength(source.counts.payloadRefs * 2);
      for (const file of read.contentFiles) {
        expect(file.startsWith(join(dirname(dir), '.content-v1') + '/')).toBe(true);
        expect(existsSync(file)).toBe(true);
      }
      // An object's integrity index is filed under the object's digest.
      const objects = read.contentFiles.filter((file) => file.includes('/objects/')).map((file) => basename(file));
      expect(objects).toHaveLength(source.counts.payloadRefs);
      expect(read.contentFiles.filter((file) => file.includes('/indexes/')).map((file) => basename(file))).toEqual(
        objects.map((digest) => `${digest}.json`),
      );
    },
  );

  it('the committed copy: its log has a new mtime, so the offset index is a stale cache (a note), and the session still opens', async () => {
    const dir = await copySession(plain.dir);
    // An index Reasonix left behind the log is stale whatever the mtime.
    const behind = await copySession(fixture('compacted').dir);
    await restoreIndexedMtime(behind);
    expect(codes(await readSession(behind))).toEqual(['note RX_OFFSET_INDEX_STALE']);
    const read = await readSession(dir);
    expect(read.status).toBe('ok');
    expect(read.problems).toEqual([
      {
        code: 'RX_OFFSET_INDEX_STALE',
        severity: 'note',
        message: 'offset index is stale (the log changed since it was written); it is a cache and will be rebuilt',
        data: { file: join(dir, 'events.offset-index.json') },
      },
    ]);
    // Listing skips the caches: nothing to note.
    expect((await readSession(dir, { caches: false })).problems).toEqual([]);
  });

  it('an offset index that names another size, identity or mtime is stale', async () => {
    const edits = [
      (text: string) => text.replace(/"logSize":(\d+)/, (_, size: string) => `"logSize":${Number(size) + 1}`),
      (text: string) => text.replace(/"logIdentity":"[0-9a-f]+"/, `"logIdentity":"${'0'.repeat(64)}"`),
      // A time that is not whole nanoseconds is no mtime a log has.
      (text: string) => text.replace(/"logModTimeNs":\d+/, '"logModTimeNs":1.5'),
      // Written with a space (valid JSON, not as Reasonix writes it): the digits cannot be compared as written.
      (text: string) => text.replace(/"logModTimeNs":/, '"logModTimeNs": '),
    ];
    for (const edit of edits) {
      const dir = await copySession(plain.dir);
      const path = join(dir, 'events.offset-index.json');
      // Edited as text: the nanoseconds Reasonix wrote are digits no double holds.
      await restoreIndexedMtime(dir);
      const text = await readFile(path, 'utf8');
      expect(edit(text)).not.toBe(text);
      await writeFile(path, edit(text));
      expect(codes(await readSession(dir))).toEqual(['note RX_OFFSET_INDEX_STALE']);
    }
  });

  it('an offset index or storage identity that is not valid is a note that names why; the session still opens', async () => {
    const dir = await copySession(plain.dir);
    await restoreIndexedMtime(dir);
    await writeJson(join(dir, 'events.offset-index.json'), { codec: 'reasonix.session.offset-index/v2' });
    await writeJson(join(dir, 'storage.identity.json'), '{"version":1,');
    const read = await readSession(dir);
    expect(read.status).toBe('ok');
    expect(read.problems.map(({ code, severity, message }) => ({ code, severity, message }))).toEqual([
      {
        code: 'RX_IDENTITY_STALE',
        severity: 'note',
        message: expect.stringMatching(/^storage identity is not valid \(.*JSON.*\); Reasonix will mint a new one$/),
      },
      {
        code: 'RX_OFFSET_INDEX_STALE',
        severity: 'note',
        message: expect.stringMatching(/^offset index is not valid \(codec: .+\); it is a cache and will be rebuilt$/),
      },
    ]);
    expect(read.problems.map((problem) => problem.data.file)).toEqual([
      join(dir, 'storage.identity.json'),
      join(dir, 'events.offset-index.json'),
    ]);
  });

  it('a storage identity of another session, or of other log bytes, is stale; one without a prefix digest is not checked against the log', async () => {
    const identityPath = (dir: string) => join(dir, 'storage.identity.json');
    const original = JSON.parse(await readFile(identityPath(plain.dir), 'utf8')) as Record<string, unknown>;
    const stale = 'storage identity does not match this log; Reasonix will mint a new one and drop its caches';
    for (const change of [{ sessionId: 'another' }, { logPrefixDigest: '0'.repeat(64) }]) {
      const dir = await copySession(plain.dir);
      await restoreIndexedMtime(dir);
      await writeJson(identityPath(dir), { ...original, ...change });
      const read = await readSession(dir);
      expect(read.problems).toEqual([
        { code: 'RX_IDENTITY_STALE', severity: 'note', message: stale, data: { file: identityPath(dir) } },
      ]);
    }
    // The first 64 bytes of the log decide: a change past them leaves the identity matching.
    const dir = await copySession(plain.dir);
    await editLog(dir, (log) => {
      log[10]! ^= 0x01;
      return log;
    });
    expect((await readSession(dir)).problems.map((problem) => problem.code)).toContain('RX_IDENTITY_STALE');
  });
});

describe('readSession refuses what Reasonix refuses, with the coded problem first', () => {
  it('a session directory that is a symlink is refused before anything in it is read', async () => {
    const dir = await copySession(plain.dir);
    const link = join(dirname(dir), 'linked');
    await symlink(dir, link);
    const read = await readSession(link);
    expect(read.status).toBe('damaged');
    expect(read.problems).toEqual([
      {
        code: 'RX_SESSION_SYMLINK',
        severity: 'error',
        message: 'the session directory is a symlink: Reasonix refuses to open it',
        data: { file: link },
      },
    ]);
    expect(read.refusal?.code).toBe('RX_SESSION_SYMLINK');
    expect(read.refusal?.message).toBe('the session directory is a symlink: Reasonix refuses to open it');
    expect(read.manifest).toBeUndefined();
    expect(read.batches).toBe(0);
    expect([read.contentFiles, read.tornEvidence, read.lockFiles]).toEqual([[], [], []]);
  });

  it('a missing or malformed manifest, and one of another session, are damage; the log is still read', async () => {
    const dir = await copySession(plain.dir);
    const manifestPath = join(dir, 'manifest.json');
    await rm(manifestPath);
    let read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.problems).toEqual([
      {
        code: 'RX_MANIFEST_MISSING',
        severity: 'error',
        message: 'manifest.json is missing',
        data: { file: manifestPath },
      },
    ]);
    expect(read.refusal?.code).toBe('RX_MANIFEST_MISSING');
    expect(reasonixRefuses(read.status)).toBe(true);
    expect(read.batches).toBe(plain.counts.batches);

    await writeJson(manifestPath, '{"schemaVersion": 4,');
    read = await readSession(dir, { caches: false });
    expect(codes(read)).toEqual(['error RX_MANIFEST_INVALID']);
    expect(read.problems[0]!.message).toMatch(/^invalid manifest: .*JSON/);
    expect(read.manifest).toBeUndefined();

    await writeJson(manifestPath, { schemaVersion: 4, codec: 'reasonix.session.linear/v4', storageRevision: 3 });
    read = await readSession(dir, { caches: false });
    // Go's zero value: a manifest that names no session belongs to "", not to this directory.
    expect(read.problems[0]!.message).toBe(`manifest belongs to "", not to directory "${plain.id}"`);
    expect(read.refusal?.message).toBe(read.problems[0]!.message);

    await writeJson(manifestPath, '[]');
    expect((await readSession(dir, { caches: false })).problems[0]!.message).toBe(
      'invalid manifest: value: Invalid input: expected object, received array',
    );

    await writeJson(manifestPath, {
      schemaVersion: 4,
      codec: 'reasonix.session.linear/v4',
      storageRevision: 3,
      sessionId: 'someone-else',
    });
    read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.problems).toEqual([
      {
        code: 'RX_MANIFEST_ID',
        severity: 'error',
        message: `manifest belongs to "someone-else", not to directory "${plain.id}"`,
        data: { file: manifestPath },
      },
    ]);
    expect(read.manifest?.sessionId).toBe('someone-else');
  });

  it('a manifest of another schema, codec or a newer storage revision is unsupported, and stays so whatever else is wrong', async () => {
    const dir = await copySession(plain.dir);
    const cases: [Record<string, unknown>, string][] = [
      [{ schemaVersion: 5 }, 'unsupported session storage version: codec reasonix.session.linear/v4, schemaVersion 5'],
      [
        { codec: 'reasonix.session.linear/v5' },
        'unsupported session storage version: codec reasonix.session.linear/v5, schemaVersion 4',
      ],
      [{ storageRevision: 4 }, 'unsupported session storage version: storageRevision 4'],
    ];
    for (const [change, message] of cases) {
      const manifestPath = await editManifest(await copySession(plain.dir), (manifest) => ({ ...manifest, ...change }));
      const read = await readSession(dirname(manifestPath), { caches: false });
      expect(read.status).toBe('unsupported');
      expect(read.problems).toEqual([
        { code: 'RX_UNSUPPORTED_VERSION', severity: 'error', message, data: { file: manifestPath } },
      ]);
      expect(read.refusal?.family).toBe('unsupported');
      expect(reasonixRefuses(read.status)).toBe(true);
    }
    // Unsupported first, damage after: the verdict stays unsupported, the refusal the first problem.
    await editManifest(dir, (manifest) => ({ ...manifest, schemaVersion: 3 }));
    await rm(logOf(dir));
    const read = await readSession(dir);
    expect(read.status).toBe('unsupported');
    expect(codes(read)).toEqual(['error RX_UNSUPPORTED_VERSION', 'error RX_LOG_MISSING']);
    expect(read.refusal?.code).toBe('RX_UNSUPPORTED_VERSION');

    // Damage first, an unsupported event after: Reasonix cannot open it either way; the verdict is unsupported, the refusal the first problem.
    const both = await copySession(plain.dir);
    await editManifest(both, (manifest) => ({ ...manifest, sessionId: 'someone-else' }));
    await appendBatch(both, [{ kind: 'rxstore.test/from-the-future', payload: {} }]);
    const mixed = await readSession(both, { caches: false });
    expect(codes(mixed)).toEqual(['error RX_MANIFEST_ID', 'error RX_UNSUPPORTED_VERSION']);
    expect(mixed.status).toBe('unsupported');
    expect(mixed.refusal?.code).toBe('RX_MANIFEST_ID');
  });

  it('a manifest of each storage revision Reasonix opens is read; one with none is a draft Reasonix would import (a warning)', async () => {
    for (const revision of [1, 2, 3]) {
      const manifestPath = await editManifest(await copySession(plain.dir), (manifest) => ({
        ...manifest,
        storageRevision: revision,
      }));
      const read = await readSession(dirname(manifestPath), { caches: false });
      expect([read.status, read.problems]).toEqual(['ok', []]);
    }
    const manifestPath = await editManifest(
      await copySession(plain.dir),
      ({ storageRevision: _, ...manifest }) => manifest,
    );
    const read = await readSession(dirname(manifestPath), { caches: false });
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
    expect(reasonixRefuses(read.status)).toBe(false);
  });

  it('header.json: a valid one is read (its cwd is the workspace); one not valid, or of another session, is damage', async () => {
    const dir = await copySession(plain.dir);
    const headerPath = join(dir, 'header.json');
    const header = {
      schemaVersion: 1,
      sessionId: plain.id,
      createdAt: '2026-11-30T06:48:48.599630499Z',
      cwd: '/home/someone/project',
      origin: 'new',
    };
    await writeJson(headerPath, header);
    let read = await readSession(dir, { caches: false });
    expect([read.status, read.problems]).toEqual(['ok', []]);
    expect(read.header).toEqual(header);
    expect(workspaceOf(read)).toBe('/home/someone/project');

    const refusals: [unknown, string][] = [
      [{ ...header, sessionId: 'other' }, 'invalid session header: sessionId "other"'],
      [
        { ...header, createdAt: '0001-01-01T00:00:00Z' },
        'invalid session header: createdAt: createdAt must not be the zero time',
      ],
      [{ ...header, origin: 'copied' }, expect.stringMatching(/^invalid session header: origin: /)],
      [{ ...header, createdAt: 'yesterday' }, expect.stringMatching(/^invalid session header: createdAt: /)],
      ['not json', expect.stringMatching(/^invalid session header: .*JSON/)],
    ];
    for (const [content, message] of refusals) {
      await writeJson(headerPath, content);
      read = await readSession(dir, { caches: false });
      expect(read.status).toBe('damaged');
      expect(read.problems).toEqual([
        { code: 'RX_HEADER_INVALID', severity: 'error', message, data: { file: headerPath } },
      ]);
    }
    // Every origin Reasonix writes is accepted.
    for (const origin of ['new', 'fork', 'canonical-v4-import', 'legacy-import']) {
      await writeJson(headerPath, { ...header, origin });
      expect((await readSession(dir, { caches: false })).header?.origin).toBe(origin);
    }
    // Fields Reasonix may add are kept, and the optional ones may be absent.
    const { cwd: _, ...withoutCwd } = header;
    await writeJson(headerPath, {
      ...withoutCwd,
      createdAt: '2026-11-30T07:48:48+01:00',
      origin: 'fork',
      parentSessionId: 'p',
      extra: 1,
    });
    read = await readSession(dir, { caches: false });
    expect(read.problems).toEqual([]);
    expect(read.header).toMatchObject({ origin: 'fork', parentSessionId: 'p', extra: 1 });
    expect(workspaceOf(read)).toBe(plain.workspace);
    // Without a header's cwd, the workspace the store declares (a transcript's meta) comes before the log's.
    expect(workspaceOf({ ...read, declaredWorkspace: '/declared' })).toBe('/declared');
    expect(workspaceOf({ ...read, header: { ...read.header!, cwd: '' }, declaredWorkspace: '/declared' })).toBe(
      '/declared',
    );
  });

  it('a payload Reasonix would refuse: counted up to it, and refused with the strict payload error before any codec damage after it', async () => {
    const dir = await copySession(plain.dir);
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), content: 'hi', host_authored: true })]);
    await appendBatch(dir, [complete({ role: 'user', id: messageId(), content: 'after the refused payload' })]);
    await editLog(dir, (log) => Buffer.concat([log, Buffer.from('RX4F')]));
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.refusal?.code).toBe('RX_STRICT_PAYLOAD');
    expect(read.refusal?.message).toMatch(/invalid message\/complete payload at \d+: unknown field "host_authored"/);
    expect(read.problems[0]).toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      severity: 'error',
      data: { file: logOf(dir) },
    });
    expect(read.problems[0]!.message).toBe(read.refusal?.message);
  });

  it('a directory that is not there: every file is missing, each said once', async () => {
    const dir = join(dirname(await copySession(plain.dir)), 'no-such-session');
    const read = await readSession(dir);
    expect(read.status).toBe('damaged');
    expect(codes(read)).toEqual(['error RX_MANIFEST_MISSING', 'error RX_LOG_MISSING']);
    expect(read.lockFiles).toEqual([]);
    expect(read.tornEvidence).toEqual([]);
  });

  it('a missing log, or a log that is not a regular file, is damage', async () => {
    const dir = await copySession(plain.dir);
    await rm(logOf(dir));
    let read = await readSession(dir);
    expect(read.status).toBe('damaged');
    expect(read.problems).toEqual([
      { code: 'RX_LOG_MISSING', severity: 'error', message: 'events.frames is missing', data: { file: logOf(dir) } },
    ]);
    expect(read.batches).toBe(0);
    await mkdir(logOf(dir));
    read = await readSession(dir);
    expect(read.problems).toEqual([
      {
        code: 'RX_LOG_MISSING',
        severity: 'error',
        message: 'events.frames is not a regular file',
        data: { file: logOf(dir) },
      },
    ]);
  });

  it('damage in the log: what precedes it is counted, and the refusal is the codec error at its offset', async () => {
    const dir = await copySession(plain.dir);
    const ends = await endFrames(dir);
    const third = ends[2]!;
    // Flip a byte of the fourth batch's end frame's zstd checksum.
    await editLog(dir, (log) => {
      log[ends[3]!.offset + ends[3]!.bytes - 1]! ^= 0x01;
      return log;
    });
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.batches).toBe(3);
    expect(read.durableEnd).toBe(third.offset + third.bytes);
    const record = third.record as unknown as { firstSeq: number; eventCount: number };
    expect(read.lastSequence).toBe(record.firstSeq + record.eventCount - 1);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]!.severity).toBe('error');
    expect(read.problems[0]!.code).toBe('RX_DAMAGED_STORE');
    expect(read.problems[0]!.data.file).toBe(logOf(dir));
    expect(read.problems[0]!.data.offset).toBe(ends[3]!.offset);
    expect(read.refusal?.code).toBe('RX_DAMAGED_STORE');
    expect(read.problems[0]!.message).toBe(read.refusal?.message);
  });

  it('a payloadRef whose content object is gone: the event is named, and the session is refused', async () => {
    const source = fixture('payload-ref');
    const dir = await copySession(source.dir);
    const whole = await readSession(dir, { caches: false });
    const object = whole.contentFiles.find((file) => file.includes('/objects/'))!;
    await rm(object);
    const read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(read.refusal?.code).toBe('RX_MISSING_CONTENT');
    // The refusal is the error the content store's read threw, as every view of the session throws it.
    expect(read.refusal).toBeInstanceOf(MissingContentError);
    expect(read.problems[0]!.message).toMatch(/^read v4 event \S+ payload: /);
    expect(read.problems[0]!.data).toMatchObject({
      file: object,
      eventId: expect.any(String),
      sequence: expect.any(Number),
    });
    expect(read.batches).toBeLessThan(whole.batches);
  });

  it('a torn tail is a warning with its size and offset; a recovery cache beside the store is named in it', async () => {
    const dir = await copySession(plain.dir);
    const ends = await endFrames(dir);
    const durable = ends.at(-2)!.offset + ends.at(-2)!.bytes;
    // The last batch loses its last 5 bytes: a write cut short.
    await cutLog(dir, 5);
    const tornBytes = (await stat(logOf(dir))).size - durable;
    let read = await readSession(dir, { caches: false });
    expect(read.status).toBe('torn-tail');
    expect(reasonixRefuses(read.status)).toBe(false);
    expect(read.tornTail).toEqual({ offset: durable, bytes: tornBytes, reason: 'unfinished batch' });
    expect(read.durableEnd).toBe(durable);
    expect(read.batches).toBe(plain.counts.batches - 1);
    expect(read.problems).toEqual([
      {
        code: 'RX_TORN_TAIL',
        severity: 'warning',
        message: `torn tail: ${tornBytes} bytes after the last committed batch (unfinished batch); invisible to readers, Reasonix moves them to events.torn-<time>.tail when it next opens the session`,
        data: { file: logOf(dir), offset: durable },
      },
    ]);

    // A recovery cache without Reasonix's checkpoint in it is not used (test/reasonix/reads/recovery-cache-matches-reasonix judges one that is).
    const cache = join(dirname(dir), '.recovery-cache', plain.id);
    await mkdir(cache, { recursive: true });
    read = await readSession(dir, { caches: false });
    expect(codes(read)).toEqual(['warning RX_TORN_TAIL']);

    // Torn and refused: the refusal decides.
    await rm(join(dir, 'manifest.json'));
    read = await readSession(dir, { caches: false });
    expect(read.status).toBe('damaged');
    expect(codes(read)).toEqual(['error RX_MANIFEST_MISSING', 'warning RX_TORN_TAIL']);
  });
});

describe('the statuses a read gives', () => {
  it('are the five a caller narrows on, and only the last two are refusals to open', () => {
    expect(SessionStatusSchema.options).toEqual(['ok', 'torn-tail', 'turn-refused', 'damaged', 'unsupported']);
    expect(SessionStatusSchema.options.filter((status) => reasonixRefuses(status))).toEqual(['damaged', 'unsupported']);
    expect(SessionStatusSchema.safeParse('refused').success).toBe(false);
  });
});

describe('readSession: what lies beside the log', () => {
  it('torn-tail evidence files are listed in order; other names are not evidence', async () => {
    const dir = await copySession(plain.dir);
    // Five of them: a directory lists them in an order of its own, which is seldom theirs.
    const evidence = [
      'events.torn-300.tail',
      'events.torn-100.tail',
      'events.torn-250.tail',
      'events.torn-200.tail',
      'events.torn-150.tail',
    ];
    for (const name of [...evidence, 'events.torn-x.tail', 'events.torn-1.tail.bak', 'xevents.torn-3.tail'])
      await writeFile(join(dir, name), 'x');
    const read = await readSession(dir, { caches: false });
    expect(read.tornEvidence).toEqual([
      'events.torn-100.tail',
      'events.torn-150.tail',
      'events.torn-200.tail',
      'events.torn-250.tail',
      'events.torn-300.tail',
    ]);
    expect(read.status).toBe('ok');
  });

  it('lock files are listed only where they are; a held writer lock says the session is open in a running Reasonix', async () => {
    const dir = await copySessionWithLocks(plain.dir);
    const ownership = join(dirname(dir), `.${plain.id}.ownership.lock`);
    await rm(join(dir, 'writer.lock'));
    expect((await readSession(dir, { caches: false })).lockFiles).toEqual([ownership]);
    await rm(ownership);
    expect((await readSession(dir, { caches: false })).lockFiles).toEqual([]);

    const locks = await acquireWriterLocks(dir);
    try {
      const read = await readSession(dir, { caches: false });
      expect(read.openBy).toBe(ownership);
      expect(read.lockFiles).toEqual([join(dir, 'writer.lock'), ownership]);
      expect(read.status).toBe('ok');
      expect(read.problems).toEqual([
        {
          code: 'RX_OPEN_IN_REASONIX',
          severity: 'warning',
          message: 'open in a running Reasonix: its writer lock is held; the log may grow while you read it',
          data: { file: ownership },
        },
      ]);
    } finally {
      await locks.release();
    }
    expect((await readSession(dir, { caches: false })).openBy).toBeUndefined();
  });

  it('what the replay keeps follows the options: whole messages by default, summaries, or an index', async () => {
    const whole = await readSession(plain.dir, { caches: false });
    const assistant = whole.projection.transcript.find((entry) => entry.message.role === 'assistant')!.message;
    expect(typeof assistant.content).toBe('string');
    const summary = await readSession(plain.dir, { caches: false, keep: 'summary' });
    const legacy = await readSession(plain.dir, { caches: false, retainContent: false });
    const retained = await readSession(plain.dir, { caches: false, retainContent: true });
    expect(summary.projection.transcript).toEqual(legacy.projection.transcript);
    expect(retained.projection.transcript).toEqual(whole.projection.transcript);
    expect(summary.projection.transcript).not.toEqual(whole.projection.transcript);
    const index = await readSession(plain.dir, { caches: false, keep: 'index' });
    expect(() => index.projection.transcript).toThrow();
    expect(index.events.total).toBe(plain.counts.events);
    // An index keeps what a person typed only when previews are asked for (a listing's titles).
    const typed = whole.projection.transcript.findIndex(
      (entry) => entry.message.role === 'user' && entry.message.origin === 'user',
    );
    expect(typed).toBeGreaterThan(0);
    expect(() => index.projection.transcriptIndex.typedText(typed)).toThrow();
    const previews = await readSession(plain.dir, { caches: false, keep: 'index', previews: true });
    expect(previews.projection.transcriptIndex.typedText(typed)).toBe(
      whole.projection.transcriptIndex.typedText(typed),
    );
    expect(previews.projection.transcriptIndex.typedText(typed)).toBeTruthy();
  });

  it('event kinds named like Object properties are counted like any other', async () => {
    const dir = await copySession(plain.dir);
    await appendBatch(dir, [
      // Kinds a reader may skip: Reasonix opens the session, and rxstore counts them.
      { kind: 'constructor', payload: {}, optional: true, required: false },
      { kind: '__proto__', payload: {}, optional: true, required: false },
      { kind: 'toString', payload: {}, optional: true, required: false },
      complete({ role: 'user', id: messageId(), origin: 'user', content: 'one more' }),
    ]);
    const read = await readSession(dir, { caches: false });
    expect(read.events.total).toBe(plain.counts.events + 4);
    expect(read.events.byKind['constructor']).toBe(1);
    expect(read.events.byKind['__proto__']).toBe(1);
    expect(read.events.byKind['toString']).toBe(1);
    expect(read.events.byKind['message/complete']).toBe(plain.counts.eventsByKind['message/complete']! + 1);
    expect(read.batches).toBe(plain.counts.batches + 1);
    expect(read.status).toBe('ok');
    expect(read.writerGeneration).toBe(1);
    expect(basename(read.dir)).toBe(plain.id);
  });
});

describe('content files', () => {
  it('a payloadRef without an integrity index names its object only', async () => {
    const storeDir = await tempDir();
    const big = 'x'.repeat(70 * 1024);
    const created = await createSession({
      storeDir,
      sessionId: 'no-index',
      batches: [{ operationId: 'op-1', events: [complete({ role: 'user', id: messageId(), content: big })] }],
    });
    // The same batch with its payloadRef's indexDigest left out, and the batch checksum made over the new records.
    const frames = await framesOf(created.dir);
    const raws = frames.map((frame) => {
      if (frame.record.recordType !== 'batch/event') return frame.raw;
      const event = frame.record.event as { payloadRef: Record<string, unknown> };
      const { indexDigest: _indexDigest, ...ref } = event.payloadRef;
      return Buffer.from(JSON.stringify({ ...frame.record, event: { ...event, payloadRef: ref } }));
    });
    const digest = createHash('sha256');
    for (const raw of raws.slice(0, -1)) digest.update(raw).update(Buffer.from([0]));
    raws[raws.length - 1] = Buffer.from(JSON.stringify({ ...frames.at(-1)!.record, sha256: digest.digest('hex') }));
    await writeFile(logOf(created.dir), Buffer.concat(raws.map((raw) => encodeFrame(raw))));
    const read = await readSession(created.dir, { caches: false });
    expect(read.status).toBe('ok');
    expect(read.payloadRefs).toBe(1);
    expect(read.contentFiles).toHaveLength(1);
    expect(read.contentFiles[0]).toMatch(/\/objects\//);
  });
});
