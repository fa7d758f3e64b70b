import { describeConversation, readCopies, type ListedCopy, type ListedSession } from './listing/describe-conversation.js';
import { findSessionCopies } from './listing/find-session-copies.js';
import { relocateHint } from './listing/relocate-hint.js';
import { conversationsMatching, describeRoots } from './listing/find-session.js';
import { groupConversations } from './listing/group-conversations.js';
import type { ReadRoot } from './roots/roots.js';
import { resumeVerdict, type ResumeContext, type ResumeVerdict } from './resume/resume-verdict.js';
import { SessionNotFoundError } from '../errors/index.js';

/** One copy of a located session, with whether and how Reasonix resumes it. */
export interface LocatedCopy extends ListedCopy {
  resume: ResumeVerdict;
}

/** Where a conversation's copies live, and how to resume it from a folder. */
export interface SessionWhereabouts extends Omit<ListedSession, 'copies'> {
  /** Every copy, the newest store's first, each with its verdict. */
  copies: LocatedCopy[];
  /**
   * The first copy that resumes from the folder; else the first a command resumes without copying
   * files; else the first any command resumes; else the first.
   */
  resume: ResumeVerdict;
}

/**
 * Finds every conversation with a copy whose id is `query` (or, when none is, starts with it), verifies each copy
 * (`readSession`: whether Reasonix would open it is the question), and says for each whether
 * `reasonix --resume <id>` run from `context.cwd` finds it, and if not why and what would.
 * Throws `SessionNotFoundError` when nothing matches.
 */
export async function locateSession(roots: readonly ReadRoot[], query: string, context: ResumeContext): Promise<SessionWhereabouts[]> {
  const found = await findSessionCopies([...roots]);
  const matching = conversationsMatching(groupConversations(found, context.platform), query);
  if (matching.length === 0) throw new SessionNotFoundError(`no session matches ${JSON.stringify(query)} (${describeRoots(roots)})`);
  return Promise.all(
    matching.map(async (conversation) => {
      const read = await readCopies(conversation, { verify: true, registries: found.registries });
      const described = describeConversation(read, conversation.parent);
      const session = { ...described, relocate: relocateHint(described, context.platform, new Map()) };
      const copies = verdictsOf(session, context);
      return { ...session, copies, resume: bestOf(copies) };
    }),
  );
}

/** Each copy of a listed conversation with what `reasonix --resume` from `context.cwd` makes of it. */
function verdictsOf(session: ListedSession, context: ResumeContext): LocatedCopy[] {
  return session.copies.map((copy) => ({ ...copy, resume: resumeVerdict(copy, session.workspace, session.copies, context) }));
}

/**
 * The first copy that resumes from the folder (one Reasonix opens before a draft it imports); else the
 * first a command resumes without copying files; else the first any command resumes; else the first.
 */
function bestOf(copies: LocatedCopy[]): ResumeVerdict {
  const best =
    copies.find((copy) => copy.resume.reason === 'resumes') ??
    copies.find((copy) => copy.resume.resumes) ??
    copies.find((copy) => copy.resume.command !== null && !copy.resume.copiesSession) ??
    copies.find((copy) => copy.resume.command !== null) ??
    copies[0]!;
  return best.resume;
}

/** What `where` says resumes a listed conversation from `context.cwd` (its command works as printed, or is null). */
export function resumeOfListed(session: ListedSession, context: ResumeContext): ResumeVerdict {
  return bestOf(verdictsOf(session, context));
}
