import type { IndexJob, IndexStep } from '../index-steps.js';

/**
 * What passes between a search index's update and its reader thread (`index-reader-worker.ts`). The
 * thread reads the sessions asked for one at a time, in the order asked, and posts each one's steps
 * in order, then `done`. It posts at most `STEPS_AHEAD` steps beyond those the update has taken (each
 * taken step is answered with `more`): what crosses, and waits, stays bounded whatever the sessions'
 * sizes, and a few small sessions are read ahead of the one being written.
 */
export type ToIndexReader = { type: 'read'; id: number; job: IndexJob } | { type: 'more' };

export type FromIndexReader = { type: 'step'; id: number; step: IndexStep } | { type: 'done'; id: number };

/** Steps the thread posts before the update has taken them. */
export const STEPS_AHEAD = 12;
