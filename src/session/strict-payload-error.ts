import { DamagedStoreError } from '../codec/errors.js';
import { Projection, type StrictnessFinding } from './projection.js';
import type { ResolvedBatch } from './read-events.js';

/**
 * A payload Reasonix 1.38.11's decoder refuses although its batch verifies: Reasonix answers
 * `damaged session store: invalid <kind> payload at <sequence>` and opens nothing.
 */
export class StrictPayloadError extends DamagedStoreError {
  override readonly code: string = 'RX_STRICT_PAYLOAD';
}

/** The error for a finding of the replay, naming the log, the event's offset and sequence. */
export function strictPayloadError(finding: StrictnessFinding, logPath: string): StrictPayloadError {
  const what = finding.damaged ? `invalid ${finding.kind} payload at ${finding.seq}` : `${finding.kind} at ${finding.seq}`;
  return new StrictPayloadError(`Reasonix 1.38.11 would refuse: ${what}: ${finding.message}`, {
    file: logPath,
    offset: finding.offset,
    sequence: finding.seq,
  });
}

/**
 * The first payload of a batch that Reasonix would refuse, checked on its own (what a reader from
 * a cursor can know without replaying the session before it); undefined when every one passes.
 */
export function refusalInBatch({ batch, payloads, payloadBytes }: ResolvedBatch, logPath: string): StrictPayloadError | undefined {
  const probe = new Projection({ retainContent: false });
  batch.events.forEach((event, index) => probe.apply(batch, event, payloads[index], payloadBytes[index]));
  const finding = probe.strictness[0];
  return finding ? strictPayloadError(finding, logPath) : undefined;
}
