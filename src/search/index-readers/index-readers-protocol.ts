import type { IndexJob, IndexStep } from '../index-steps.js';

/**
 * What passes between a search index's update and its reader thread (`index-reader-worker.ts`). The
 * thread reads the sessions asked for one at a time, in the order asked, and posts each one's steps
 * in order, then `done`. It posts at most `STEPS_AHEAD` steps of records, holding at most
 * `CHARACTERS_AHEAD` of text, beyond those the update has taken (each taken one is answered with
 * `more`): what crosses, and waits, stays bounded whatever the sessions' sizes, and small sessions are
 * read ahead of the one being written. The steps that hold no records (a restart, an end) are posted
 * without counting: counted, they kept the thread to some four small sessions ahead, and it waited
 * while the update read one itself.
 */
export type ToIndexReader = { type: 'read'; id: number; job: IndexJob } | { type: 'more' };

export type FromIndexReader = { type: 'step'; id: number; step: IndexStep } | { type: 'done'; id: number };

/** Steps of records the thread posts before the update has taken them. */
export const STEPS_AHEAD = 12;
/**
 * Characters of text those steps hold at most (one step is posted whatever it holds): a long log's steps
 * are cut at a mebibyte of text each, and twelve of them waiting took a 1 GiB session's build past 256 MiB.
 */
export const CHARACTERS_AHEAD = 4 * 1024 * 1024;

/** Whether a step counts against `STEPS_AHEAD`: it holds records (and their texts), which bound what waits. */
export const holdsRecords = (step: IndexStep): step is Extract<IndexStep, { type: 'write' }> => step.type === 'write';
