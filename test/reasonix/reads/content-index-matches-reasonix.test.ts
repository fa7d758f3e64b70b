import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_DIR, ContentStore } from '../../../src/codec/content-store.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, framesOf, rewriteEveryRecord } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * An integrity index as Reasonix 1.38.11 reads it: it checks the version, the object, its size, the
 * block size and the number of blocks, and reads the JSON as Go does (keys in any case); the block
 * digests themselves are not compared (the object's own SHA-256 is). Each index here is given a ref
 * that names it (its digest in the event, the batch signed again), so only what it says is judged.
 */
const source = fixture('payload-ref');

async function withIndex(edit: (index: Record<string, unknown>) => string) {
  const dir = await copySession(source.dir);
  const ref = (await framesOf(dir))
    .map(
      (frame) =>
        (frame.record as { event?: { payloadRef?: { digest: string; indexDigest?: string } } }).event?.payloadRef,
    )
    .find((found) => found?.indexDigest !== undefined)!;
  const store = new ContentStore(join(dirname(dir), CONTENT_DIR));
  const path = store.indexPath(ref.digest);
  const text = edit(JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>);
  await writeFile(path, text);
  const digest = createHash('sha256').update(text).digest('hex');
  await rewriteEveryRecord(dir, (record) => record.replaceAll(ref.indexDigest!, digest));
  return dir;
}

const blocks = (index: Record<string, unknown>) => index.blocks as string[];
const cases: [string, (index: Record<string, unknown>) => string, boolean][] = [
  ['the index as written', (index) => JSON.stringify(index), true],
  [
    'other block digests, as many',
    (index) => JSON.stringify({ ...index, blocks: blocks(index).map(() => 'f'.repeat(64)) }),
    true,
  ],
  [
    'block digests in upper case',
    (index) => JSON.stringify({ ...index, blocks: blocks(index).map((block) => block.toUpperCase()) }),
    true,
  ],
  [
    'keys in another case',
    (index) => JSON.stringify(index).replace('"blocks"', '"Blocks"').replace('"blockBytes"', '"BLOCKBYTES"'),
    true,
  ],
  ['one block too few', (index) => JSON.stringify({ ...index, blocks: blocks(index).slice(1) }), false],
  ['one block too many', (index) => JSON.stringify({ ...index, blocks: [...blocks(index), 'f'.repeat(64)] }), false],
  ['version 2', (index) => JSON.stringify({ ...index, version: 2 }), false],
  ['version null', (index) => JSON.stringify({ ...index, version: null }), false],
  ['a block size of 4096', (index) => JSON.stringify({ ...index, blockBytes: 4096 }), false],
  ['another object', (index) => JSON.stringify({ ...index, object: 'a'.repeat(64) }), false],
  ['another size', (index) => JSON.stringify({ ...index, bytes: (index.bytes as number) - 1 }), false],
  ['version written 1.0', (index) => JSON.stringify(index).replace('"version":1', '"version":1.0'), false],
  ['bytes written with an exponent', (index) => JSON.stringify(index).replace(/"bytes":(\d+)/, '"bytes":$1e0'), false],
  ['blocks that are numbers', (index) => JSON.stringify({ ...index, blocks: blocks(index).map(() => 1) }), false],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('an integrity index, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(cases)('%s: rxstore says ok exactly when Reasonix opens the session', async (_, edit, opens) => {
    const dir = await withIndex(edit);
    const read = await readSession(dir, { caches: false });
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code === 0, `${run.stdout}\n${run.stderr}`).toBe(opens);
    expect(read.status).toBe(opens ? 'ok' : 'damaged');
    if (!opens)
      expect(read.refusal).toMatchObject({
        code: 'RX_CORRUPT_CONTENT',
        message: expect.stringMatching(/integrity index/),
      });
  });
});

/** A reference's own index fields: `""` names no index (Go's zero value), and without one its block size is not read. */
const refCases: [string, (record: string) => string][] = [
  ['empty index digests', (record) => record.replace(/"indexDigest":"[0-9a-f]{64}"/g, '"indexDigest":""')],
  [
    'no index digests and block sizes below zero',
    (record) =>
      record
        .replace(/"indexDigest":"[0-9a-f]{64}",/g, '')
        .replace(/"integrityBlockBytes":\d+/g, '"integrityBlockBytes":-1'),
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle("a reference's index fields, judged by Reasonix 1.38.11"), () => {
  it.concurrent.each(refCases)('%s: Reasonix opens the session, and rxstore says ok', async (_, edit) => {
    const dir = await copySession(source.dir);
    await rewriteEveryRecord(dir, edit);
    const read = await readSession(dir, { caches: false });
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(read.status).toBe('ok');
  });
});
