import { posix } from 'node:path';
import { logPathOf, sessionPathOf, type BaseSession, type Entries, type Entry } from './fuzz-bases.js';
import type { Expectation, FuzzInput, FuzzOptions } from './fuzz-inputs.js';
import type { seededRandom } from '../seeded-random.js';

/** What every generator makes and the helpers they share: a draft is an input before it is numbered. */

export type Random = ReturnType<typeof seededRandom>;

export type Draft = Omit<FuzzInput, 'category' | 'index' | 'chunkBytes'>;

export type MakeDrafts = (rand: Random, bases: readonly BaseSession[], options: FuzzOptions) => Iterable<Draft>;

export const DAMAGED = 'RX_DAMAGED_STORE';

export function withLog(base: BaseSession, recipe: string, log: Buffer, expect?: Expectation): Draft {
  return {
    recipe: `${base.name}: ${recipe}`,
    entries: replaced(base.entries, logPathOf(base.id), fileEntry(log)),
    sessionPath: sessionPathOf(base.id),
    log,
    ...(expect ? { expect } : {}),
  };
}

export function replaced(entries: Entries, path: string, entry: Entry): Entries {
  return new Map(entries).set(path, entry);
}

/** `path` becomes a relative link to a copy of itself at `outside`. */
export function linkedOut(entries: Entries, path: string, outside: string): Entries {
  return replaced(replaced(entries, outside, entries.get(path)!), path, {
    kind: 'symlink',
    target: posix.relative(posix.dirname(path), outside),
  });
}

export const fileEntry = (bytes: Buffer): Entry => ({ kind: 'file', bytes });

export const frameOffset = (base: BaseSession, k: number) => base.frames[k]?.offset ?? base.log.length;

export const committedBefore = (base: BaseSession, offset: number) =>
  base.batches.filter((batch) => batch.end <= offset).length;

/** The payloadRefs a base's log holds. */
export function refsOf(base: BaseSession): { digest: string; bytes: number }[] {
  return base.frames.flatMap((frame) => {
    const record = JSON.parse(frame.record.toString('utf8')) as {
      event?: { payloadRef?: { digest: string; bytes: number } };
    };
    return record.event?.payloadRef ? [record.event.payloadRef] : [];
  });
}
