import { StrictPayloadError } from '../../errors/index.js';
import { Projection, type StrictnessFinding } from './projection.js';
import type { ResolvedBatch } from '../reading/read-events.js';

/** The error for a finding of the replay, naming the log, the event's offset and sequence. */
export function strictPayloadError(finding: StrictnessFinding, logPath: string): StrictPayloadError {
  const what = finding.damaged
    ? `invalid ${finding.kind} payload at ${finding.seq}`
    : `${finding.kind} at ${finding.seq}`;
  return new StrictPayloadError(`Reasonix 1.38.11 would refuse: ${what}: ${finding.message}`, {
    file: logPath,
    offset: finding.offset,
    sequence: finding.seq,
  });
}

/**
 * A batch replayed on its own (what a reader from a cursor can know without replaying the session
 * before it): the messages, workspace and title it writes, and the first payload Reasonix would
 * refuse in it, if any.
 */
export function replayBatch(
  resolved: ResolvedBatch,
  logPath: string,
): { replay: Projection; refusal: StrictPayloadError | undefined } {
  const replay = new Projection();
  replay.applyBatch(resolved);
  const finding = replay.strictness[0];
  return { replay, refusal: finding ? strictPayloadError(finding, logPath) : undefined };
}
