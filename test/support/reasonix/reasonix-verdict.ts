import { rm } from 'node:fs/promises';
import { resumeWithReasonix } from './reasonix.js';

/** What Reasonix 1.38.11 said when asked to resume a session: whether it opened it, and its error line. */
export interface ReasonixVerdict {
  opens: boolean;
  /** The `error: …` line it printed, or '' when it opened the session. */
  error: string;
  /** rxstore's status for the same verdict: ok, or what kind of refusal its words name. */
  status: 'ok' | 'unsupported' | 'damaged';
}

/** Resumes a copy of the session with the real Reasonix (a mock model answers) and reads its verdict; `home` is a scratch state root to lay it in (removed after). */
export async function reasonixVerdict(dir: string, workspace: string, home?: string): Promise<ReasonixVerdict> {
  const run = await resumeWithReasonix(dir, { workspace, prompt: 'Resume check: say ok.', ...(home ? { home } : {}) });
  await rm(run.home, { recursive: true, force: true });
  const error = `${run.stdout}\n${run.stderr}`.split('\n').find((line) => line.startsWith('error: ')) ?? '';
  if (run.code === 0) return { opens: true, error: '', status: 'ok' };
  return {
    opens: false,
    error,
    status: error.startsWith('error: unsupported session storage version') ? 'unsupported' : 'damaged',
  };
}
