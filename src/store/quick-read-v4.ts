import { RxError } from '../codec/errors.js';
import { V4_CODEC, V4_SCHEMA_VERSION } from '../codec/records.js';
import { OPEN_STORAGE_REVISIONS } from '../session/manifest.js';
import { Projection } from '../session/projection.js';
import type { SessionStatus } from '../session/read-session.js';
import { readSessionEvents } from '../session/read-events.js';
import { writerLockHolder } from '../session/writer-locks.js';
import type { V4Copy } from './session-copy.js';

/** What listing needs from a v4 session: Reasonix's verdict, the replayed messages, the writer lock. */
export interface V4Reading {
  status: SessionStatus;
  /** Why Reasonix would refuse it (the first reason), when it would. */
  problem: string | null;
  projection: Projection;
  payloadRefs: number;
  /** The writer lock a running process holds, if any. */
  openBy: string | undefined;
}

/**
 * Reads a v4 session for listing: the verdict `readSession` gives on its manifest, header and
 * log (spec §3–§9, §13.1 step 3), without its cache checks and directory survey, which listing
 * does not show and which cost most of `readSession`'s time on small sessions. The manifest and
 * header were already read when the copy was found.
 */
export async function quickReadV4(copy: V4Copy): Promise<V4Reading> {
  const reading: V4Reading = { status: 'ok', problem: null, projection: new Projection(), payloadRefs: 0, openBy: undefined };
  const refuse = (message: string, verdict: 'damaged' | 'unsupported' = 'damaged') => {
    reading.problem ??= message;
    if (reading.status !== 'unsupported') reading.status = verdict;
  };
  const { manifest, header } = copy;
  if (manifest.state === 'missing') refuse('manifest.json is missing');
  else if (manifest.state === 'invalid') refuse(`invalid manifest: ${manifest.reason}`);
  else {
    const { schemaVersion, codec, storageRevision, sessionId } = manifest.value;
    if (schemaVersion !== V4_SCHEMA_VERSION || codec !== V4_CODEC) refuse(`unsupported session storage version: codec ${codec}, schemaVersion ${schemaVersion}`, 'unsupported');
    else if ((storageRevision ?? 0) > OPEN_STORAGE_REVISIONS.at(-1)!) refuse(`unsupported session storage version: storageRevision ${storageRevision}`, 'unsupported');
    if (sessionId !== copy.id) refuse(`manifest belongs to ${JSON.stringify(sessionId)}, not to directory ${JSON.stringify(copy.id)}`);
  }
  if (header.state === 'invalid') refuse(`invalid session header: ${header.reason}`);
  else if (header.state === 'ok' && header.value.sessionId !== copy.id) refuse(`invalid session header: sessionId ${JSON.stringify(header.value.sessionId)}`);

  try {
    const contentRoot = manifest.state === 'ok' ? manifest.value.contentRoot : undefined;
    for await (const item of readSessionEvents(copy.path, { contentRoot })) {
      if (item.type === 'torn-tail') {
        if (reading.status === 'ok') reading.status = 'torn-tail';
        continue;
      }
      const { batch, payloads } = item.value;
      batch.events.forEach((event, index) => {
        if (event.payloadRef) reading.payloadRefs += 1;
        reading.projection.apply(batch, event, payloads[index]);
      });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') refuse('events.frames is missing');
    else if (error instanceof RxError) refuse(error.message, error.code === 'RX_UNSUPPORTED_VERSION' ? 'unsupported' : 'damaged');
    else throw error;
  }
  const finding = reading.projection.strictness[0] ?? reading.projection.unreadable[0];
  if (finding) refuse(`Reasonix 1.38.11 would refuse: invalid ${finding.kind} payload at ${finding.seq}: ${finding.message}`);
  reading.openBy = await writerLockHolder(copy.path);
  return reading;
}
