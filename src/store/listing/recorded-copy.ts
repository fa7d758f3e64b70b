import { normalize } from 'node:path';
import { locateInStore } from '../roots/store-location.js';
import type { SessionCopy } from './session-copy.js';

/**
 * Finds, among `copies`, the one a path recorded in a file names (a manifest's `source`, a desktop
 * registry's mapping), by its index: the copy at that path, or, when the root was moved or copied since
 * the path was recorded, the copy at the same place below a root (the recording copy's root first).
 */
export type RecordedCopy = (recorded: string, from: SessionCopy) => number | undefined;

/** The copies' indexes by their path, and by their place below their root (`key`: several roots may hold one). */
export interface CopyIndexes {
  byPath: ReadonlyMap<string, number>;
  byKey: ReadonlyMap<string, readonly number[]>;
}

export function copyIndexes(copies: readonly SessionCopy[]): CopyIndexes {
  const byKey = new Map<string, number[]>();
  copies.forEach((copy, index) => {
    const same = byKey.get(copy.key);
    if (same) same.push(index);
    else byKey.set(copy.key, [index]);
  });
  return { byPath: new Map(copies.map((copy, index) => [copy.path, index])), byKey };
}

export function recordedCopyIn(
  copies: readonly SessionCopy[],
  { byPath, byKey }: CopyIndexes = copyIndexes(copies),
): RecordedCopy {
  return (recorded, from) => {
    const exact = byPath.get(normalize(recorded));
    if (exact !== undefined) return exact;
    const candidates = byKey.get(locateInStore(recorded)?.key ?? '') ?? [];
    return (
      candidates.find((index) => copies[index]!.root === from.root) ??
      (candidates.length === 1 ? candidates[0] : undefined)
    );
  };
}
