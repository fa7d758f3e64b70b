import { dirname } from 'node:path';
import { FileSystemError, locateSession, SessionNotFoundError, type ResumeContext } from '../index.js';

/**
 * The command that resumes the session a command just wrote at `path`, as `rxstore where` would
 * print it from `context.cwd` (the one rule, `resumeVerdict`: the folder to run from, the state
 * root it needs, or copying a global session into a workspace's store), judged in the store it sits
 * in. Null when no command resumes it; undefined when it cannot be judged (nothing there yet).
 */
export async function resumeAsWhereSays(path: string, id: string, context: ResumeContext): Promise<string | null | undefined> {
  const located = await locateSession([{ kind: 'store', path: dirname(path) }], id, context).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError || error instanceof FileSystemError) return [];
    throw error;
  });
  const copy = located.flatMap((whereabouts) => whereabouts.copies).find((candidate) => candidate.path === path);
  return copy ? copy.resume.command : undefined;
}
