import { findSessionCopies } from '../store/listing/find-session-copies.js';
import { groupConversations } from '../store/listing/group-conversations.js';
import type { Platform } from '../store/roots/platform.js';
import type { ReadRoot } from '../store/roots/roots.js';

/**
 * The JSONL transcripts of the state roots that have no sessions-v4 or desktop twin (no session
 * migrated from them, no same-id mirror): what `migrate jsonl-to-v4 --all` migrates. Transcripts
 * in legacy roots are left to Reasonix's own one-time import.
 */
export async function unmigratedTranscripts(roots: readonly ReadRoot[], platform: Platform): Promise<string[]> {
  const found = await findSessionCopies([...roots], ['desktop-sessions-v5', 'sessions-v4', 'jsonl']);
  return groupConversations(found, platform)
    .filter((conversation) => conversation.copies.every((copy) => copy.format === 'jsonl'))
    .flatMap((conversation) => conversation.copies.filter((copy) => copy.store === 'jsonl').map((copy) => copy.path))
    .sort();
}
