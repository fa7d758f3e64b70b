// salvageSession in process, on copies of a session the real Reasonix wrote: what it keeps, what it
// recovers past the damage (and what it leaves out), the new session's manifest and diagnostic event,
// where it writes, and when it writes nothing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../src/codec/frame.js';
import { createSession, salvageSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { readSessionEvents } from '../../../src/session/reading/read-events.js';
import { copySession, editLog, endFrames, framesOf, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { messageId } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';
import { treeDigest } from '../../support/tree-digest.js';

const source = fixture('tool-calls');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every event of a session, with its parsed payload. */
async function eventsOf(dir: string): Promise<{ kind: string; payload: unknown }[]> {
  const events: { kind: string; payload: unknown }[] = [];
  for await (const item of readSessionEvents(dir)) {
    if (item.type === 'batch')
      item.value.batch.events.forEach((event, index) =>
        events.push({ kind: event.kind, payload: item.value.payloads[index] }),
      );
  }
  return events;
}

/** A copy with one bit flipped in a middle message frame: the batch it is in and all after it fail to verify. */
async function flippedCopy() {
  const dir = await copySession(source.dir);
  const frames = await framesOf(dir);
  const messages = frames.filter(
    (frame) => (frame.record.event as { kind?: string } | undefined)?.kind === 'message/complete',
  );
  const flipped = messages[Math.floor(messages.length / 2)]!;
  const kept = (await endFrames(dir)).filter((frame) => frame.offset < flipped.offset);
  await editLog(dir, (log) => {
    log[flipped.offset + flipped.bytes - 1]! ^= 0x01;
    return log;
  });
  const lastKept = kept.at(-1)!.record as unknown as { firstSeq: number; eventCount: number };
  return {
    dir,
    flipped,
    kept,
    keptEvents: kept.reduce((sum, frame) => sum + (frame.record.eventCount as number), 0),
    keptLastSeq: lastKept.firstSeq + lastKept.eventCount - 1,
    verifiedEnd: kept.at(-1)!.offset + kept.at(-1)!.bytes,
  };
}

describe('salvageSession', () => {
  it('an intact session is copied whole: every batch kept, no damage, nothing recovered, no diagnostic event', async () => {
    const dir = await copySession(source.dir);
    const log = await readFile(logOf(dir));
    const report = await salvageSession(dir);
    expect(report).toMatchObject({
      source: dir,
      action: 'salvaged',
      damage: null,
      batchesKept: source.counts.batches,
      eventsKept: source.counts.events,
      recoveredMessages: 0,
    });
    expect(report.newId).toMatch(/^[0-9a-f]{32}$/);
    expect(report.newDir).toBe(join(dirname(dir), report.newId));
    const manifest = JSON.parse(await readFile(join(report.newDir, 'manifest.json'), 'utf8'));
    expect(manifest.source).toEqual({
      path: dir,
      size: log.length,
      sha256: sha256(log),
      version: 'reasonix.session.linear/v4',
    });
    expect(manifest.inheritedEventCount).toBe(source.counts.events);
    const original = await eventsOf(dir);
    expect(await eventsOf(report.newDir)).toEqual(original);
    const rescued = await readSession(report.newDir);
    expect(rescued.status).toBe('ok');
    expect(rescued.events.byKind).toEqual(source.counts.eventsByKind);
  });

  it('a torn tail is no damage: the whole batches are kept with their turns, and the messages of the cut batch come back', async () => {
    const dir = await copySession(source.dir);
    const frames = await framesOf(dir);
    const isMessage = (frame: (typeof frames)[number]) =>
      frame.record.recordType === 'batch/event' && (frame.record.event as { kind: string }).kind === 'message/complete';
    // The last batch with a message, cut at its commit: its messages are written but its batch/end is not.
    const lastMessage = frames.findLast(isMessage)!;
    const cutAt = frames.find((frame) => frame.offset > lastMessage.offset && frame.record.recordType === 'batch/end')!;
    const batchStart = frames.findLast(
      (frame) => frame.offset < lastMessage.offset && frame.record.recordType === 'batch/begin',
    )!;
    const cutMessages = frames.filter(
      (frame) => frame.offset > batchStart.offset && frame.offset < cutAt.offset && isMessage(frame),
    );
    const batchesKept = frames.filter(
      (frame) => frame.offset < batchStart.offset && frame.record.recordType === 'batch/end',
    ).length;
    expect(cutMessages.length).toBeGreaterThan(0);
    await editLog(dir, (log) => log.subarray(0, cutAt.offset));
    expect((await readSession(dir)).status).toBe('torn-tail');
    const turnsOf = async (session: string) => {
      const turns: (string | undefined)[] = [];
      for await (const item of readSessionEvents(session))
        if (item.type === 'batch') turns.push(item.value.batch.turnId);
      return turns;
    };
    const report = await salvageSession(dir);
    expect(report).toMatchObject({
      action: 'salvaged',
      damage: null,
      batchesKept,
      recoveredMessages: cutMessages.length,
    });
    const kept = await turnsOf(dir);
    expect(kept.some((turn) => turn !== undefined)).toBe(true);
    expect((await turnsOf(report.newDir)).slice(0, kept.length)).toEqual(kept);
    const events = await eventsOf(report.newDir);
    expect(events.filter((event) => event.kind === 'diagnostic').map((event) => event.payload)).toEqual([
      { salvage: expect.objectContaining({ damage: null, offset: null, recoveredMessages: cutMessages.length }) },
    ]);
  });

  it('past the last whole batch only message events come back: another event holding a message, and events without a payload, are no messages', async () => {
    const storeDir = await tempDir();
    const say = (id: string, content: string) => ({
      kind: 'message/complete',
      payload: { message: { role: 'user', id, content } },
    });
    const created = await createSession({
      storeDir,
      sessionId: 'mixed-events',
      batches: [
        { operationId: 'op-1', turnId: 'turn-1', events: [{ kind: 'turn/start' }, say('kept', 'first')] },
        {
          operationId: 'op-2',
          events: [
            { kind: 'diagnostic', payload: { message: { role: 'user', id: 'in-a-diagnostic', content: 'not said' } } },
            say('cut', 'second'),
          ],
        },
      ],
    });
    const cutAt = (await framesOf(created.dir)).findLast((frame) => frame.record.recordType === 'batch/end')!;
    await editLog(created.dir, (log) => log.subarray(0, cutAt.offset));
    const report = await salvageSession(created.dir);
    expect(report).toMatchObject({ damage: null, batchesKept: 1, recoveredMessages: 1 });
    const messages = (await eventsOf(report.newDir))
      .filter((event) => event.kind === 'message/complete')
      .map((event) => (event.payload as { message: { id: string } }).message.id);
    expect(messages).toEqual(['kept', 'cut']);
  });

  it('a session already standing where the salvage goes, made from no source, is never written over', async () => {
    const dir = await copySession(source.dir);
    const planned = await salvageSession(dir, { dryRun: true });
    await createSession({
      storeDir: dirname(planned.newDir),
      sessionId: planned.newId,
      batches: [{ operationId: 'other', events: [{ kind: 'session/title', payload: { title: 'other' } }] }],
    });
    await expect(salvageSession(dir)).rejects.toMatchObject({ code: 'RX_SESSION_EXISTS' });
  });

  it("past a flipped bit: keeps the verified batches, recovers the person's view of the messages after, and says so in a diagnostic event", async () => {
    const { dir, flipped, kept, keptEvents, keptLastSeq, verifiedEnd } = await flippedCopy();
    const original = await treeDigest(dirname(dir));
    const session = await treeDigest(dir);
    const intact = await readSession(source.dir);
    const lost = (flipped.record.event as { seq: number }).seq;
    const expected = intact.projection.transcript.filter(
      (entry) =>
        entry.seq > keptLastSeq && entry.seq !== lost && entry.message.origin !== 'host' && !entry.message.local_only,
    );
    expect(expected.length).toBeGreaterThan(1);

    const dry = await salvageSession(dir, { dryRun: true });
    expect(dry.action).toBe('would-salvage');
    expect(existsSync(dry.newDir)).toBe(false);
    expect(await treeDigest(dirname(dir))).toBe(original);

    const report = await salvageSession(dir);
    expect(report).toEqual({ ...dry, action: 'salvaged' });
    expect(report.damage).toMatchObject({ code: 'RX_DAMAGED_STORE', data: { offset: flipped.offset } });
    expect(report.damage!.message).toMatch(/decode v4 frame: CRC check failed/);
    expect(report.batchesKept).toBe(kept.length);
    expect(report.eventsKept).toBe(keptEvents);
    expect(report.recoveredMessages).toBe(expected.length);
    // The original is as it was.
    expect(await treeDigest(dir)).toBe(session);

    const events = await eventsOf(report.newDir);
    expect(events).toHaveLength(keptEvents + 1 + expected.length);
    expect(events.slice(0, keptEvents)).toEqual((await eventsOf(source.dir)).slice(0, keptEvents));
    expect(events[keptEvents]).toEqual({
      kind: 'diagnostic',
      payload: {
        salvage: {
          source: dir,
          damage: report.damage!.message,
          offset: flipped.offset,
          verifiedEnd,
          recoveredMessages: expected.length,
        },
      },
    });
    expect(
      events.slice(keptEvents + 1).map((event) => (event.payload as { message: { id: string } }).message.id),
    ).toEqual(expected.map((entry) => entry.message.id));
    const manifest = JSON.parse(await readFile(join(report.newDir, 'manifest.json'), 'utf8'));
    expect(manifest.inheritedEventCount).toBe(keptEvents);
    expect(manifest.source.sha256).toBe(sha256(await readFile(logOf(dir))));

    // Again on the same bytes: found there, nothing written.
    const digest = await treeDigest(report.newDir);
    expect(await salvageSession(dir)).toEqual({ ...report, action: 'already-salvaged' });
    expect(await treeDigest(report.newDir)).toBe(digest);
  });

  it("the frames past the damage that hold no message of the person's view are left out; each message id comes back once", async () => {
    const { dir, kept } = await flippedCopy();
    // Of the person's view: a host or local-only message would be left out before its id is looked at.
    const keptIds = (await readSession(source.dir)).projection.transcript
      .filter(
        (entry) =>
          entry.seq <= (kept.at(-1)!.record.firstSeq as number) &&
          entry.message.origin !== 'host' &&
          !entry.message.local_only,
      )
      .map((entry) => entry.message.id!);
    expect(keptIds.length).toBeGreaterThan(0);
    const eventFrame = (event: Record<string, unknown>) =>
      encodeFrame(
        Buffer.from(
          JSON.stringify({
            schemaVersion: 4,
            codec: 'reasonix.session.linear/v4',
            recordType: 'batch/event',
            createdAt: '0001-01-01T00:00:00Z',
            event,
          }),
        ),
      );
    const payload = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
    const message = (fields: Record<string, unknown>) =>
      payload({ message: { role: 'user', content: 'x', ...fields } });
    const result = (id: string, call: string, content: string) =>
      payload({ message: { role: 'tool', id, tool_call_id: call, name: 'bash', content } });
    const receipt = { id: 'r', kind: 'k', tool: 't', subject: 's', outcome: 'o' };
    const noticed = messageId();
    const upserted = messageId();
    const twice = messageId();
    const log = await readFile(logOf(dir));
    // The first crafted frame starts where the log ended.
    const noIdAt = log.length;
    const crafted = [
      // An event with a message of no id: recovered under a name of its own.
      eventFrame({ seq: 900, kind: 'message/complete', payload: message({ content: 'no id here' }) }),
      encodeFrame(Buffer.from('not JSON at all')),
      // JSON that is not a record at all.
      encodeFrame(Buffer.from('null')),
      encodeFrame(Buffer.from('[1,2]')),
      encodeFrame(
        Buffer.from(
          JSON.stringify({
            recordType: 'batch/begin',
            event: { kind: 'message/complete', payload: message({ id: messageId() }) },
          }),
        ),
      ),
      eventFrame({ seq: 901, kind: 'session/title', payload: payload({ title: 'not a message' }) }),
      eventFrame({ seq: 902, kind: 'message/complete' }),
      eventFrame({ seq: 903, kind: 'message/complete', payload: 'not base64!' }),
      // A field Reasonix 1.38.11 does not know ("json: unknown field"): it would refuse the new session, so it is left out.
      eventFrame({
        seq: 904,
        kind: 'message/complete',
        payload: payload({ message: { role: 'user', id: messageId(), content: 'unknown field', unknownField: 1 } }),
      }),
      eventFrame({ seq: 905, kind: 'message/complete', payload: payload({ message: { role: 42 } }) }),
      eventFrame({
        seq: 906,
        kind: 'message/complete',
        payload: message({ id: messageId(), origin: 'host', content: 'host says' }),
      }),
      eventFrame({
        seq: 907,
        kind: 'message/complete',
        payload: message({ id: messageId(), local_only: true, content: 'local only' }),
      }),
      eventFrame({ seq: 908, kind: 'message/complete', payload: message({ id: keptIds[0], content: 'already kept' }) }),
      eventFrame({ seq: 909, kind: 'message/upsert', payload: message({ id: upserted, content: 'upserted' }) }),
      eventFrame({ seq: 910, kind: 'message/complete', payload: message({ id: twice, content: 'first' }) }),
      eventFrame({ seq: 911, kind: 'message/complete', payload: message({ id: twice, content: 'second' }) }),
      eventFrame({ seq: 912, kind: 'message/complete', payload: 'bnVsbA==' }),
      // A record key met twice would make Reasonix refuse the new session (duplicate transcript record): the second is
      // left out — a second result for one call, and a message whose id names the place of another's notice.
      eventFrame({ seq: 913, kind: 'message/complete', payload: result(messageId(), 'call_salvaged', 'one result') }),
      eventFrame({ seq: 914, kind: 'message/complete', payload: result(messageId(), 'call_salvaged', 'two results') }),
      eventFrame({
        seq: 915,
        kind: 'message/complete',
        payload: message({ id: noticed, content: 'with a receipt', decision_receipts: [receipt] }),
      }),
      eventFrame({
        seq: 916,
        kind: 'message/complete',
        payload: message({ id: `${noticed}:notice:1`, content: 'at its place' }),
      }),
    ];
    await writeFile(logOf(dir), Buffer.concat([log, ...crafted]));

    const report = await salvageSession(dir);
    // Counted apart: one host message, one local-only, one Reasonix would refuse, beyond what the same damage leaves out alone.
    const plain = await salvageSession((await flippedCopy()).dir);
    expect(report.leftOutMessages).toEqual({
      host: plain.leftOutMessages.host + 1,
      localOnly: plain.leftOutMessages.localOnly + 1,
      refused: plain.leftOutMessages.refused + 3,
    });
    const events = await eventsOf(report.newDir);
    const recovered = events
      .slice(events.findIndex((event) => event.kind === 'diagnostic') + 1)
      .map((event) => (event.payload as { message: { id: string; content: string } }).message);
    expect(recovered.length).toBe(report.recoveredMessages);
    const tail = recovered.slice(-5).map(({ id, content }) => ({ id, content }));
    expect(tail).toEqual([
      { id: `salvaged-${noIdAt}`, content: 'no id here' },
      { id: upserted, content: 'upserted' },
      { id: twice, content: 'first' },
      { id: expect.any(String), content: 'one result' },
      { id: noticed, content: 'with a receipt' },
    ]);
    const contents = recovered.map((found) => found.content);
    for (const left of [
      'host says',
      'local only',
      'already kept',
      'second',
      'unknown field',
      'two results',
      'at its place',
    ])
      expect(contents).not.toContain(left);
    expect((await readSession(report.newDir)).status).toBe('ok');
  });

  it('--to writes the new session in another store and nothing beside the original', async () => {
    const { dir } = await flippedCopy();
    const store = dirname(dir);
    const digest = await treeDigest(store);
    const target = join(await tempDir(), 'elsewhere', 'sessions-v4');
    // A store named with `to` is one that is there: one that is not is said so, and nothing is made.
    await expect(salvageSession(dir, { to: target, dryRun: true })).rejects.toMatchObject({
      code: 'RX_PATH_KIND',
      message: `${target}: no such folder; create it first`,
    });
    expect(existsSync(dirname(target))).toBe(false);
    await mkdir(target, { recursive: true });
    const dry = await salvageSession(dir, { to: target, dryRun: true });
    expect(dry.newDir).toBe(join(target, dry.newId));
    expect(await readdir(target)).toEqual([]);
    const report = await salvageSession(dir, { to: target });
    expect(report.newDir).toBe(dry.newDir);
    expect((await readSession(report.newDir)).status).toBe('ok');
    expect(await treeDigest(store)).toBe(digest);
  });

  it('the same bytes salvaged from another place, or a salvage there that no longer matches, is never written over', async () => {
    const { dir } = await flippedCopy();
    const target = join(await tempDir(), 'sessions-v4');
    await mkdir(target);
    const first = await salvageSession(dir, { to: target });
    // The same session directory name and bytes, somewhere else: the same new id, but not its salvage.
    const elsewhere = join(await tempDir(), 'other-store', basename(dir));
    await mkdir(dirname(elsewhere), { recursive: true });
    await cp(dir, elsewhere, { recursive: true });
    await expect(salvageSession(elsewhere, { to: target })).rejects.toMatchObject({
      code: 'RX_SESSION_EXISTS',
      data: { file: first.newDir },
    });
    // A salvage whose recorded digest no longer matches the damaged log is not taken for this one.
    const manifestPath = join(first.newDir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(
      manifestPath,
      JSON.stringify({ ...manifest, source: { ...manifest.source, sha256: '0'.repeat(64) } }, null, 2),
    );
    await expect(salvageSession(dir, { to: target })).rejects.toMatchObject({ code: 'RX_SESSION_EXISTS' });
    // A different damage is a different salvage, under another id.
    await editLog(dir, (log) => log.subarray(0, log.length - 1));
    const other = await salvageSession(dir, { to: target });
    expect(other.newId).not.toBe(first.newId);
  });

  it('a session without a log is not salvaged: the missing file is named, nothing is written', async () => {
    const dir = await copySession(source.dir);
    await rm(logOf(dir));
    const digest = await treeDigest(dirname(dir));
    await expect(salvageSession(dir)).rejects.toMatchObject({
      code: 'RX_FILE_SYSTEM',
      message: `${logOf(dir)}: no such file or directory`,
    });
    expect(await treeDigest(dirname(dir))).toBe(digest);
  });
});
