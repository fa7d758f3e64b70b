import type { BaseSession, Entries } from './fuzz-bases.js';
import type { MakeDrafts } from './fuzz-drafts.js';
import { specialFiles, symlinks } from './fuzz-file-inputs.js';
import { bitFlips, hugeSizes, splices, truncations, zstdOverruns } from './fuzz-log-inputs.js';
import { badDigests, badUtf8, deepJson, protoKeys, randomRecords, wideJson } from './fuzz-record-inputs.js';
import { seededRandom } from '../seeded-random.js';

/**
 * Seeded generators of hostile session stores, one stream per category. An input is made again
 * from (seed, category, index) alone: each stream draws from its own generator.
 */

export const CATEGORIES = [
  'bit-flip',
  'truncation',
  'splice',
  'random-record',
  'huge-size',
  'zstd-overrun',
  'deep-json',
  'wide-json',
  'proto-keys',
  'bad-utf8',
  'bad-digest',
  'symlink',
  'special-file',
] as const;

export type Category = (typeof CATEGORIES)[number];

/** What an input is known to do, beyond the checks every input gets. */
export interface Expectation {
  /** The codec reads the log without error and commits this many batches (docs/format.md §3.4). */
  committedBatches?: number;
  /** The codec refuses the log with this code, naming the frame at this offset. */
  codecError?: { code: string; offset: number };
  /** Whether readSession says Reasonix would open the session (status ok or torn-tail). */
  sessionOpens?: boolean;
  /** A problem readSession must report. */
  /** A problem code the session must report (any one of them, for a list). */
  sessionProblem?: string | readonly string[];
  /** No single Buffer allocation may reach this many bytes (a declared size that is refused). */
  allocationBelow?: number;
}

export interface FuzzInput {
  category: Category;
  index: number;
  /** What was done to which base, in words. */
  recipe: string;
  /** The whole fuzz store, paths relative to its root. */
  entries: Entries;
  /** The path readSession is given, relative to the root. */
  sessionPath: string;
  /** The log the codec reads from memory; undefined when events.frames is no regular file. */
  log: Buffer | undefined;
  /** The codec reads the log in chunks of this size: frames must not depend on it. */
  chunkBytes: number;
  /** Check the codec only (truncation runs readSession at a stride to keep `npm test` short). */
  codecOnly?: boolean;
  expect?: Expectation;
}

export interface FuzzOptions {
  seed: number;
  /** Nesting depth of the deep-json inputs. */
  depth: number;
  /** Truncation runs readSession at every n-th cut and around frame boundaries; the codec at every cut. */
  truncationSessionStride: number;
  /** Size of a sparse file standing in for a store file. */
  sparseBytes: number;
}

/** The inputs of one category: endless, except for truncation and special-file, which enumerate. */
export function* fuzzInputs(
  category: Category,
  bases: readonly BaseSession[],
  options: FuzzOptions,
): Generator<FuzzInput> {
  const rand = seededRandom((options.seed ^ Math.imul(0x9e3779b9, CATEGORIES.indexOf(category) + 1)) >>> 0);
  let index = 0;
  for (const draft of GENERATORS[category](rand, bases, options)) {
    // Small chunks find chunk-boundary bugs; the floor keeps any log to 512 chunks, so big ones stay quick.
    const chunkBytes = Math.max(
      rand.pick([1, 2, 7, 12, 13, 64, 4096, 1 << 20]),
      Math.ceil((draft.log?.length ?? 0) / 512),
    );
    yield { ...draft, category, index, chunkBytes };
    index += 1;
  }
}

const GENERATORS: Record<Category, MakeDrafts> = {
  'bit-flip': bitFlips,
  truncation: truncations,
  splice: splices,
  'random-record': randomRecords,
  'huge-size': hugeSizes,
  'zstd-overrun': zstdOverruns,
  'deep-json': deepJson,
  'wide-json': wideJson,
  'proto-keys': protoKeys,
  'bad-utf8': badUtf8,
  'bad-digest': badDigests,
  symlink: symlinks,
  'special-file': specialFiles,
};

/** A content object or index that is gone (`RX_MISSING_CONTENT`) or there but wrong (`RX_CORRUPT_CONTENT`). */
export const CONTENT_REFUSED = ['RX_MISSING_CONTENT', 'RX_CORRUPT_CONTENT'] as const;
