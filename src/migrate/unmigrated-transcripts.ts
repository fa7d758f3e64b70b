import { basename, dirname, join, normalize } from 'node:path';
import { V4_CODEC } from '../codec/records.js';
import { readJsonFile } from '../session/reading/read-json-file.js';
import { findSessionCopies } from '../store/listing/find-session-copies.js';
import { groupConversations } from '../store/listing/group-conversations.js';
import type { Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';
import { MIGRATION_MAP, MigrationMapSchema } from './migration-map.js';

/**
 * The JSONL transcripts of the state roots that have no sessions-v4 or desktop twin (no session
 * migrated from them, no same-id mirror): what `migrate jsonl-to-v4 --all` migrates. A transcript
 * whose migrated session was published but whose migration-map entry was never written (the run
 * failed after the rename: a full disk) is not done either: migrating it again writes the entry.
 * Transcripts in legacy roots are left to Reasonix's own one-time import.
 */
export async function unmigratedTranscripts(roots: readonly ReadRoot[], platform: Platform): Promise<string[]> {
  const found = await findSessionCopies([...roots], ['desktop-sessions-v5', 'sessions-v4', 'jsonl']);
  const transcripts: string[] = [];
  for (const conversation of groupConversations(found, platform)) {
    const { copies } = conversation;
    if (copies.every((copy) => copy.format === 'jsonl')) {
      transcripts.push(...copies.filter((copy) => copy.store === 'jsonl').map((copy) => copy.path));
      continue;
    }
    for (const copy of copies) {
      if (copy.format !== 'v4' || copy.store !== 'sessions-v4' || copy.manifest.state !== 'ok') continue;
      const source = copy.manifest.value.source;
      const sourcePath = source?.path;
      if (!sourcePath || source?.version === V4_CODEC) continue;
      const transcript = copies.find((other) => other.store === 'jsonl' && other.path === normalize(sourcePath));
      if (transcript && !(await mapNames(dirname(copy.path), sourcePath, basename(copy.path))))
        transcripts.push(transcript.path);
    }
  }
  return [...new Set(transcripts)].sort();
}

/**
 * Whether the store's migration map records the migration. A map that is missing says no; one that
 * is not valid says yes, so that nothing acts on it (the migration that would update it refuses it).
 */
async function mapNames(storeDir: string, sourcePath: string, targetId: string): Promise<boolean> {
  const read = await readJsonFile(join(storeDir, MIGRATION_MAP), MigrationMapSchema).catch(() => undefined);
  if (read?.state !== 'ok' && read?.state !== 'missing') return true;
  if (read.state === 'missing') return false;
  return (read.value.entries ?? []).some((entry) => entry.sourcePath === sourcePath && entry.targetId === targetId);
}
