import { basename, dirname } from 'node:path';

export type StoreKind = 'sessions-v4' | 'desktop-sessions-v5' | 'unknown';

/** Which store a session directory sits in, from the folders around it (spec §1.2, §12). */
export function storeKindOf(sessionDir: string): StoreKind {
  const parent = dirname(sessionDir);
  if (basename(parent) === 'sessions-v4') return 'sessions-v4';
  if (basename(parent) === 'by-id' && basename(dirname(parent)) === 'desktop-sessions-v5') return 'desktop-sessions-v5';
  return 'unknown';
}
