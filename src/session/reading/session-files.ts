import { basename, dirname, join } from 'node:path';
import { contentRootFor } from '../../codec/content-store.js';
import type { ReadPaths } from '../../fs/path-kind.js';

/** The names of the files in a v4 session directory (docs/format.md §2). */
export const SESSION_FILES = {
  manifest: 'manifest.json',
  header: 'header.json',
  log: 'events.frames',
  identity: 'storage.identity.json',
  offsetIndex: 'events.offset-index.json',
  writerLock: 'writer.lock',
  legacy: 'legacy',
} as const;

/** `events.torn-<unixnano>.tail`: bytes a writer cut from a torn log and kept as evidence (docs/format.md §3.4). */
export const TORN_EVIDENCE = /^events\.torn-\d+\.tail$/;

/** The outer writer lock lives beside the session directory, in the store (docs/format.md §9.5). */
export function ownershipLockPath(storeDir: string, sessionId: string): string {
  return join(storeDir, `.${sessionId}.ownership.lock`);
}

/**
 * What reading a v4 session reads, which a command writing elsewhere must not land in: the session
 * directory, the content store its payloadRefs resolve in (the store's shared one) and its outer lock.
 */
export function sessionReadPaths(dir: string): ReadPaths {
  return {
    name: `the session ${dir}`,
    dirs: [dir, contentRootFor(dir)],
    files: [ownershipLockPath(dirname(dir), basename(dir))],
  };
}
