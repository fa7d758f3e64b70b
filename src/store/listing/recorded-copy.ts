import { normalize } from 'node:path';
import { locateInStore } from '../roots/store-location.js';
import type { SessionCopy } from './session-copy.js';

/**
 * Finds, among `copies`, the one a path recorded in a file names (a manifest's `source`, a desktop
 * registry's mapping), by its index: the copy at that path, or, when the root was moved or copied since
 * the path was recorded, the copy at the same place below a root (the recording copy's root first).
 */
export type RecordedCopy = (recorded: string, from: SessionCopy) => number | undefined;

export function recordedCopyIn(copies: readonly SessionCopy[]): RecordedCopy {
  const byPath = new Map(copies.map((copy, index) => [copy.path, index]));
  const byKey = new Map<string, number[]>();
  copies.forEach((copy, index) => byKey.set(copy.key, [...(byKey.get(copy.key) ?? []), index]));
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
