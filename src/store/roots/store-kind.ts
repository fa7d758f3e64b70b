import { basename, dirname } from 'node:path';
import { FILE_MODE, OUTPUT_FILE_MODE } from '../../fs/atomic-write.js';

/** Which store a session directory sits in. */
export type StoreKind = 'sessions-v4' | 'desktop-sessions-v5' | 'unknown';

/**
 * The stores a session is listed from, newest format first — the order a conversation's copies
 * are shown in: a desktop copy supersedes the CLI's, a v4 session its JSONL source (docs/format.md §10, §12).
 * `legacy` is a pre-1.8.1 or v0.x root that Reasonix only imports from (docs/format.md §1.4).
 */
export type ListedStore = 'desktop-sessions-v5' | 'sessions-v4' | 'jsonl' | 'legacy';
export const STORES_NEWEST_FIRST: readonly ListedStore[] = ['desktop-sessions-v5', 'sessions-v4', 'jsonl', 'legacy'];

/** Which store a session directory sits in, from the folders around it (docs/format.md §1.2, §12). */
export function storeKindOf(sessionDir: string): StoreKind {
  const parent = dirname(sessionDir);
  if (basename(parent) === 'sessions-v4') return 'sessions-v4';
  if (basename(parent) === 'by-id' && basename(dirname(parent)) === 'desktop-sessions-v5') return 'desktop-sessions-v5';
  return 'unknown';
}

/**
 * The mode a JSONL transcript rxstore writes (an export, a salvage) is made with. In one of
 * Reasonix's JSONL stores — each is a folder named `sessions` (docs/format.md §1.2, §1.4) — Reasonix's
 * own, `FILE_MODE`, whatever the umask; in any other folder, a user's, `OUTPUT_FILE_MODE`: the umask
 * decides, and a file written over keeps its mode.
 */
export function transcriptModeIn(dir: string): number {
  return basename(dir) === 'sessions' ? FILE_MODE : OUTPUT_FILE_MODE;
}
