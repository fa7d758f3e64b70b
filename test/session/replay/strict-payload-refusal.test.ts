import { describe, expect, it } from 'vitest';
import { StrictPayloadError } from '../../../src/errors/index.js';
import { openLogSession } from '../../../src/index.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { drain } from '../../support/drain.js';
import { appendBatch, copySession, framesOf, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';

/**
 * A payload Reasonix 1.38.11 would refuse, appended to a copy of a session it wrote: the whole read
 * and the batch-by-batch readers name the log, the event's offset and its sequence, and say why.
 */
async function withRefused(event: EventToWrite) {
  const dir = await copySession(fixture('plain-chat').dir);
  const seq = (await readSession(dir)).lastSequence + 1;
  await appendBatch(dir, [event]);
  const frame = (await framesOf(dir)).find(
    (candidate) => (candidate.record.event as { seq?: number } | undefined)?.seq === seq,
  );
  expect(frame, 'the appended event frame').toBeDefined();
  return { dir, seq, offset: frame!.offset };
}

describe('a refused payload is reported where it is, whichever way the session is read', () => {
  it('a damaged payload: the whole read and the batch readers give the same coded error', async () => {
    const { dir, seq, offset } = await withRefused({ kind: 'turn/end', payload: { status: 'cancelled' } });
    const message = `Reasonix 1.38.11 would refuse: invalid turn/end payload at ${seq}: status "cancelled" is not completed, failed or interrupted`;
    const data = { file: logOf(dir), offset, sequence: seq };
    const read = await readSession(dir);
    expect(read.status).toBe('damaged');
    expect(read.refusal).toBeInstanceOf(StrictPayloadError);
    expect(read.refusal).toMatchObject({ code: 'RX_STRICT_PAYLOAD', message, data });
    const session = await openLogSession(dir);
    const events = await drain(session.events());
    expect(events.items.length).toBe(fixture('plain-chat').counts.batches);
    expect(events.error).toBeInstanceOf(StrictPayloadError);
    expect(events.error).toMatchObject({ message, data });
    await expect(session.readSince()).rejects.toMatchObject({ code: 'RX_STRICT_PAYLOAD', message, data });
  });

  it('a receipt Reasonix cannot read is named without calling the session damaged payload', async () => {
    const { dir, seq, offset } = await withRefused({
      kind: 'submission/accepted',
      optional: true,
      // The digests are one string in Reasonix's receipt: a list is refused (an unknown key is ignored).
      payloadJson: Buffer.from('{"acceptedAttachmentDigests":["d1"]}'),
    });
    const message = `Reasonix 1.38.11 would refuse: submission/accepted at ${seq}: acceptedAttachmentDigests: Invalid input: expected string, received array`;
    const read = await readSession(dir);
    expect(read.refusal).toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      message,
      data: { file: logOf(dir), offset, sequence: seq },
    });
    const events = await drain((await openLogSession(dir)).events());
    expect(events.error).toMatchObject({ message });
  });
});
