import { withFolderLock } from '../fs/os-lock.js';

/**
 * Runs `work` holding each state root's folder lock, taken in one order: one relocation at a time under a
 * state root, its plan as well as its moves. Two at once (a command started twice) interleaved their moves,
 * and one that planned while the other moved found a session's writer lock held for the move, and refused
 * that session as open in a running Reasonix.
 */
export function withStateRootsHeld<T>(stateRoots: readonly string[], work: () => Promise<T>): Promise<T> {
  const roots = [...new Set(stateRoots)].sort();
  return roots.reduceRight((inner: () => Promise<T>, root) => () => withFolderLock(root, inner), work)();
}
