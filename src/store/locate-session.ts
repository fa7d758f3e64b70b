import {
  describeConversation,
  readCopies,
  type ListedCopy,
  type ListedSession,
} from './listing/describe-conversation.js';
import { findSessionCopies } from './listing/find-session-copies.js';
import { relocateHint } from './listing/relocate-hint.js';
import { conversationsMatching, describeRoots } from './listing/find-session.js';
import { groupConversations } from './listing/group-conversations.js';
import type { ReadRoot } from './roots/roots.js';
import { resumeVerdict, type ResumeContext, type ResumeVerdict } from './resume/resume-verdict.js';
import { dirname } from 'node:path';
import { FileSystemError, SessionNotFoundError } from '../errors/index.js';
import { checkRoots } from '../errors/caller-input.js';

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
export async function locateSession(
  roots: readonly ReadRoot[],
  query: string,
  context: ResumeContext,
): Promise<SessionWhereabouts[]> {
  checkRoots(roots);
  const found = await findSessionCopies([...roots]);
  const matching = conversationsMatching(groupConversations(found, context.platform), query);
  if (matching.length === 0)
    throw new SessionNotFoundError(`no session matches ${JSON.stringify(query)} (${describeRoots(roots)})`);
  return Promise.all(
    matching.map(async (conversation) => {
      const read = await readCopies(conversation, {
        verify: true,
        registries: found.registries,
        platform: context.platform,
      });
      const described = describeConversation(read, conversation.parent);
      const session = { ...described, relocate: relocateHint(described, context.platform, new Map()) };
      const copies = verdictsOf(session, context);
      return { ...session, copies, resume: bestOf(copies) };
    }),
  );
}

/** Each copy of a listed conversation with what `reasonix --resume` from `context.cwd` makes of it. */
function verdictsOf(session: ListedSession, context: ResumeContext): LocatedCopy[] {
  return session.copies.map((copy) => ({
    ...copy,
    resume: resumeVerdict(copy, session.workspace, session.copies, context),
  }));
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

/**
 * The command that resumes the copy at `path` (of session `id`), as `rxstore where` prints it: the
 * copy as found under `roots`, else judged in the store it sits in by the same rule (the state root it
 * needs, or a global session copied into a workspace's store). Null when no command resumes it;
 * undefined when it cannot be judged (nothing there, or its store cannot be listed).
 */
export async function resumeOfCopy(
  path: string,
  id: string,
  context: ResumeContext,
  roots: readonly ReadRoot[] = [],
): Promise<string | null | undefined> {
  // A root the system will not list is said by the commands that read roots; here it only loses the command.
  const locate = (where: readonly ReadRoot[]) =>
    locateSession(where, id, context).catch((error: unknown) => {
      if (error instanceof SessionNotFoundError || error instanceof FileSystemError) return [];
      throw error;
    });
  const found =
    roots.length === 0
      ? undefined
      : (await locate(roots)).find((whereabouts) => whereabouts.copies.some((copy) => copy.path === path));
  if (found) return found.resume.command;
  const own = await locate([{ kind: 'store', path: dirname(path) }]);
  const copy = own.flatMap((whereabouts) => whereabouts.copies).find((candidate) => candidate.path === path);
  if (copy) return copy.resume.command;
  return undefined;
}
