import { join } from 'node:path';
import type { TornTail } from '../../codec/batch.js';
import type { ContentStore } from '../../codec/content-store.js';
import { readLogBatches, type LogReadingThread, type ReadLogOptions } from '../../codec/read-log.js';
import { sessionContentStore } from './session-content.js';
import { SESSION_FILES } from './session-files.js';
import { tornTailDamage } from './checkpoint-cover.js';
import { resolveBatch, type ResolvedBatch } from './resolve-batch.js';

export type { ResolvedBatch };

/** One item of a session log as read: a verified batch with its payloads resolved, or the torn tail after the last one. */
export type SessionLogItem = { type: 'batch'; value: ResolvedBatch } | { type: 'torn-tail'; tail: TornTail };

/** Where `readSessionEvents` starts, and the content store to resolve payloads from. */
export interface ReadEventsOptions extends ReadLogOptions {
  /** The session's content store, when the caller has already read its manifest. */
  content?: ContentStore;
}

/**
 * The committed batches of a session's log, with payloadRefs resolved through the content store
 * and every payload parsed. Streams: memory is bounded by the largest batch, not the log.
 */
export function readSessionEvents(sessionDir: string, options: ReadEventsOptions = {}): AsyncGenerator<SessionLogItem> {
  // Stryker disable next-line StringLiteral: which thread reads the log: both give the same items
  return readSessionEventsOn('this', sessionDir, options);
}

/**
 * `readSessionEvents` with the log decoded where `thread` says: a read of the whole log to verify it
 * (`readSession`) takes a worker for a long log; a stream of what is new takes none, as starting one
 * would delay its first item.
 */
export async function* readSessionEventsOn(
  thread: LogReadingThread,
  sessionDir: string,
  options: ReadEventsOptions = {},
): AsyncGenerator<SessionLogItem> {
  const logPath = join(sessionDir, SESSION_FILES.log);
  const content = options.content ?? (await sessionContentStore(sessionDir));
  for await (const item of readLogBatches(logPath, options, thread)) {
    if (item.type === 'batch') {
      yield { type: 'batch', value: await resolveBatch(item.batch, content, logPath) };
      continue;
    }
    // What reads as a torn tail where whole batches follow is damage, said as such (`tornTailDamage`).
    const damage = await tornTailDamage(sessionDir, item.tail, content);
    if (damage) throw damage;
    yield item;
  }
}
