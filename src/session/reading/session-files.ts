import { join } from 'node:path';

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
