import { checkCursor, cursorAt } from '../../session/cursors/cursor.js';
import { readSessionEvents } from '../../session/reading/read-events.js';
import { directoryRefusal } from '../../session/reading/directory-refusal.js';
import { writerLockHolder } from '../../session/reading/writer-locks.js';
import { Projection } from '../../session/replay/projection.js';
import type { DesktopRegistryFacts } from '../roots/desktop-registry.js';
import { TallyCarrier } from './log-tally.js';
import { logStamp, metaDigest, type ResumePoint } from './resume-point.js';
import type { V4Copy } from './session-copy.js';
import { contentStampOf } from './content-stamp.js';
import { summaryOfV4, type CopyRead } from './summarise-copy.js';
import { ContentStore, contentRootFor } from '../../codec/content-store.js';
import { OperationsSeen } from '../../session/cursors/operations-seen.js';
import { operationHashBefore } from '../../codec/operations/operation-hash-before.js';
import { SESSION_FILES } from '../../session/reading/session-files.js';
import { join } from 'node:path';

/**
 * Reads only what was appended to a v4 copy's log since `resume`: the batches after its cursor,
 * each replayed on its own and added to the tally — the same summary a whole read gives. Undefined
 * when that cannot be vouched for, and the caller reads the log whole: the log is another file,
 * did not grow (changed in place), or its bytes around the cursor changed, the manifest or header changed, or the new batches do
 * something a tally cannot follow (`TallyCarrier`), are damaged, or are refused.
 */
export async function summariseAppended(
  copy: V4Copy,
  resume: ResumePoint,
  contentFiles: readonly string[],
  registry: DesktopRegistryFacts | undefined,
): Promise<CopyRead | undefined> {
  if (resume.meta !== metaDigest(copy)) return undefined;
  const before = logStamp(copy);
  if (before?.inode !== resume.logInode) return undefined;
  // Only a log that grew was appended to: one that changed and did not grow was rewritten in place,
  // where the digests around the cursor cannot vouch for its middle.
  if (before.size <= resume.logSize) return undefined;
  // What a whole read refuses before it reads a batch (a symlinked directory, a log that is not a file, a file
  // Reasonix cannot use to open the session): the whole read names it.
  if (await directoryRefusal(copy.path)) return undefined;
  try {
    await checkCursor(copy.path, copy.id, resume.cursor);
  } catch {
    // A cursor that no longer fits, or any other doubt: the log is read whole, and that read surfaces a real fault.
    return undefined;
  }
  // The operation ids before the cursor: a new batch that may use one again is judged by their begin records.
  const usedBefore = OperationsSeen.before(resume.cursor);
  if (!usedBefore) return undefined;
  const operations = usedBefore.copy();
  const carrier = new TallyCarrier(resume.tally);
  // The content files of what was read before (checked unchanged by the cache), and of the new batches.
  const content =
    copy.manifest.state === 'ok'
      ? new ContentStore(contentRootFor(copy.path, copy.manifest.value.contentRoot))
      : undefined;
  const files = new Set(contentFiles);
  let position = resume.cursor;
  let tornTail = false;
  try {
    for await (const item of readSessionEvents(copy.path, {
      offset: position.offset,
      nextSequence: position.nextSequence,
    })) {
      if (item.type === 'torn-tail') {
        tornTail = true;
        continue;
      }
      const { batch } = item.value;
      // One an earlier batch may have used: a retry (the same hash) goes on; another hash is the whole read's to name.
      if (!usedBefore.certainlyNew(batch.operationId)) {
        const prior = await operationHashBefore(
          join(copy.path, SESSION_FILES.log),
          resume.cursor.offset,
          batch.operationId,
        );
        if (prior !== undefined && prior !== batch.operationHash) return undefined;
      }
      operations.add(batch.operationId);
      // Replayed as a whole read replays it for listing, but on its own: what came before is in the tally.
      const replay = new Projection({ keep: 'summary' });
      replay.applyBatch(item.value);
      const payloadRefs = batch.events.filter((event) => event.payloadRef).length;
      for (const { payloadRef } of batch.events) {
        if (!payloadRef) continue;
        if (!content) return undefined;
        for (const file of content.filesOf(payloadRef)) files.add(file);
      }
      if (
        !carrier.add(
          replay,
          batch.events.map((event) => event.kind),
          { lastCommitAt: batch.createdAt, payloadRefs },
        )
      )
        return undefined;
      position = {
        ...position,
        offset: batch.end,
        nextSequence: batch.firstSeq + batch.eventCount,
        writerGeneration: Math.max(position.writerGeneration, batch.writerGeneration),
      };
    }
  } catch {
    // Damage past the cursor: a whole read names it as Reasonix would.
    return undefined;
  }
  const tally = carrier.result();
  const cursor =
    position === resume.cursor
      ? resume.cursor
      : await cursorAt(copy.path, copy.id, { ...position, operations: operations.snapshot() });
  const openBy = await writerLockHolder(copy.path);
  const header = copy.header.state === 'ok' ? copy.header.value : undefined;
  const summary = summaryOfV4(
    copy,
    { status: tornTail ? 'torn-tail' : 'ok', problem: null, tally, header, openBy },
    registry,
  );
  // A log that changed during the read gives no resume point: the next read is a whole one.
  const after = logStamp(copy);
  const stamped = contentStampOf([...files]);
  const withContent = stamped ? { content: stamped } : {};
  if (before.stamp !== after?.stamp) return { summary, ...withContent };
  return {
    summary,
    resume: { cursor, tally, logInode: before.inode, logSize: before.size, meta: resume.meta },
    ...withContent,
  };
}
