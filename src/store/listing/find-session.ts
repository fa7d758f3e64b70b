import { lstat } from 'node:fs/promises';
import { findSessionCopies } from './find-session-copies.js';
import { groupConversations, type Conversation } from './group-conversations.js';
import type { Platform } from '../roots/platform.js';
import type { ReadRoot } from '../roots/roots.js';
import type { SessionCopy } from './session-copy.js';
import { SessionNotFoundError } from '../../errors/index.js';

/**
 * The conversations a session query names: those with a copy whose id is the query, else those
 * with a copy whose id starts with it (an exact id is never ambiguous with the longer ids it
 * begins). A JSONL transcript's id is its file name without `.jsonl`.
 */
export function conversationsMatching(conversations: readonly Conversation[], query: string): Conversation[] {
  const exact = conversations.filter((conversation) => conversation.copies.some((copy) => copy.id === query));
  return exact.length > 0
    ? exact
    : conversations.filter((conversation) => conversation.copies.some((copy) => copy.id.startsWith(query)));
}

/** The copies of a conversation the query names, the newest store's first. */
export function copiesMatching(conversation: Conversation, query: string): SessionCopy[] {
  const exact = conversation.copies.filter((copy) => copy.id === query);
  return exact.length > 0 ? exact : conversation.copies.filter((copy) => copy.id.startsWith(query));
}

/** Says which roots were read, so that "nothing matches" can be told from "looked in the wrong place". */
export function describeRoots(roots: readonly ReadRoot[]): string {
  return roots.length === 0 ? 'no Reasonix root is set here' : `read ${roots.map((root) => root.path).join(', ')}`;
}

/** The roots read, those that do not exist said so: `ls --home /typo` must not look like an empty home. */
export async function rootsRead(roots: readonly ReadRoot[]): Promise<string> {
  const missing = await Promise.all(roots.map(async (root) => !(await lstat(root.path).catch(() => undefined))));
  if (roots.length > 0 && missing.every(Boolean))
    return `${roots.map((root) => root.path).join(', ')}: no such directory`;
  return describeRoots(roots);
}

/**
 * Every conversation under the roots that `query` (an id or the start of one) names, from
 * directory listings and metadata files only: no log is read. Throws `SessionNotFoundError` when
 * none does.
 */
export async function findSession(
  roots: readonly ReadRoot[],
  query: string,
  platform: Platform,
): Promise<Conversation[]> {
  const found = await findSessionCopies([...roots]);
  const matching = conversationsMatching(groupConversations(found, platform), query);
  if (matching.length === 0)
    throw new SessionNotFoundError(`no session matches ${JSON.stringify(query)} (${describeRoots(roots)})`);
  return matching;
}
