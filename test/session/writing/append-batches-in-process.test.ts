// appendBatches on copies of sessions the real Reasonix wrote: what it adds, where, under which writer
// generation, and what it refuses to append to.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError, InvalidInputError } from '../../../src/errors/index.js';
import { appendBatches } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, cutLog, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { complete, messageId } from '../../support/sessions/sample-session.js';

const manifestOf = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;

describe('appendBatches', () => {
  it('adds whole batches after the log, continuing its sequences, under the next writer generation', async () => {
    const source = fixture('payload-ref');
    const dir = await copySession(source.dir);
    const before = await readSession(dir);
    const log = await readFile(logOf(dir));
    const generation = (await manifestOf(dir)).writerGeneration as number;
    expect(generation).toBeGreaterThan(0);

    const written = await appendBatches(dir, [
      { operationId: 'rename', events: [{ kind: 'session/title', payload: { title: 'Appended title' } }] },
      {
        operationId: 'turn',
        events: [
          complete({ role: 'user', id: messageId(), content: 'One more question.' }),
          complete({ role: 'assistant', id: messageId(), content: 'One more answer.' }),
        ],
      },
    ]);

    expect(written.map((batch) => [batch.firstSeq, batch.eventCount, batch.writerGeneration])).toEqual([
      [source.counts.events + 1, 1, generation + 1],
      [source.counts.events + 2, 2, generation + 1],
    ]);
    expect(written[0]!.offset).toBe(log.length);
    expect(written[1]!.offset).toBe(written[0]!.end);
    expect((await manifestOf(dir)).writerGeneration).toBe(generation + 1);
    // The log grew by exactly the new batches; what was there is byte for byte the same.
    const after = await readFile(logOf(dir));
    expect(after.length).toBe(written[1]!.end);
    expect(after.subarray(0, log.length)).toEqual(log);

    const read = await readSession(dir);
    expect(read.status).toBe('ok');
    expect(read.batches).toBe(before.batches + 2);
    expect(read.lastSequence).toBe(source.counts.events + 3);
    expect(read.writerGeneration).toBe(generation + 1);
    expect(read.projection.title).toBe('Appended title');
    expect(read.projection.transcript.slice(-2).map((entry) => entry.message.content)).toEqual([
      'One more question.',
      'One more answer.',
    ]);
    // The staging file of the append is gone.
    expect((await readdir(dir)).filter((name) => name.endsWith('.staged'))).toEqual([]);

    // A second append is the generation after that.
    const again = await appendBatches(
      dir,
      [{ operationId: 'rename-2', events: [{ kind: 'session/title', payload: { title: 'Again' } }] }],
      { validate: false },
    );
    expect(again[0]!.writerGeneration).toBe(generation + 2);
    expect(again[0]!.firstSeq).toBe(source.counts.events + 4);
  });

  it('refuses a log with a torn tail, pointing to repair, and changes nothing', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await cutLog(dir, 7);
    const torn = await readSession(dir);
    const log = await readFile(logOf(dir));
    const manifest = await readFile(join(dir, 'manifest.json'));
    const error = await appendBatches(dir, [
      { operationId: 'x', events: [{ kind: 'session/title', payload: { title: 'x' } }] },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect(error).toMatchObject({
      message: `cannot append after a torn tail of ${torn.tornTail!.bytes} bytes: run rxstore repair first`,
      data: { file: logOf(dir), offset: torn.tornTail!.offset },
    });
    expect(await readFile(logOf(dir))).toEqual(log);
    expect(await readFile(join(dir, 'manifest.json'))).toEqual(manifest);
  });

  it('refuses a session without a manifest', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await rm(join(dir, 'manifest.json'));
    const log = await readFile(logOf(dir));
    const error = await appendBatches(dir, [
      { operationId: 'x', events: [{ kind: 'session/title', payload: { title: 'x' } }] },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect(error).toMatchObject({
      message: 'cannot append: manifest is missing',
      data: { file: join(dir, 'manifest.json') },
    });
    expect(await readFile(logOf(dir))).toEqual(log);
  });

  it('with validation off, still never writes an operation id the log holds with other events', async () => {
    // payload-ref holds payloads in the content store: without validation nothing of them needs reading.
    const dir = await copySession(fixture('payload-ref').dir);
    const log = await readFile(logOf(dir));
    const error = await appendBatches(
      dir,
      [{ operationId: 'session-create', events: [{ kind: 'session/title', payload: { title: 'x' } }] }],
      { validate: false },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({
      message: 'operation "session-create" is already in the log with other events',
      data: { file: logOf(dir) },
    });
    expect(await readFile(logOf(dir))).toEqual(log);
  });

  it('with validation off, appends past a content object the log can no longer read', async () => {
    const dir = await copySession(fixture('payload-ref').dir);
    // Damage the content store: validation would replay these payloads; an append without it does not read them.
    const contentDir = join(dir, '..', '.content-v1');
    await rm(join(contentDir, 'objects'), { recursive: true, force: true });
    const written = await appendBatches(
      dir,
      [{ operationId: 'late', events: [{ kind: 'session/title', payload: { title: 'late' } }] }],
      { validate: false },
    );
    expect(written).toHaveLength(1);
    const refused = await appendBatches(dir, [
      { operationId: 'later', events: [{ kind: 'session/title', payload: { title: 'later' } }] },
    ]).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: 'RX_MISSING_CONTENT' });
  });
});
