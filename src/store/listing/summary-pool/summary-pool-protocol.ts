import type { CopyRead, SummariseOptions } from '../summarise-copy.js';
import type { V4Copy } from '../session-copy.js';

/**
 * What passes between a listing and a summary worker (`summary-worker.ts`): each `summarise` is
 * answered, in the order asked, by exactly one message with its `job`: the copy's read, or `failed`
 * when summarising threw (a fault of rxstore's own: the listing summarises the copy again itself,
 * which throws it there).
 */
export type ToSummaryWorker = { type: 'summarise'; job: number; copy: V4Copy; options: SummariseOptions };

export type FromSummaryWorker = { type: 'read'; job: number; read: CopyRead } | { type: 'failed'; job: number };
