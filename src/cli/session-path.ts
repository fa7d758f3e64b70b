import { openSession, UsageError } from '../index.js';

/** The full path of a sessions-v4 (or desktop) session directory; a JSONL transcript or anything else is a usage error. */
export async function v4SessionPath(path: string): Promise<string> {
  const session = await openSession(path);
  if (session.format !== 'v4')
    throw new UsageError(
      `${session.path}: a JSONL transcript; this command works on sessions-v4 directories (migrate it first)`,
    );
  return session.path;
}
