import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { SESSION_FILES } from '../session/session-files.js';
import { UsageError } from './usage-error.js';

/** A directory with a manifest or a log is a session (perhaps a damaged one); anything else is a usage error. */
export async function assertSessionDir(dir: string): Promise<void> {
  const stats = await lstat(dir).catch(() => undefined);
  if (!stats) throw new UsageError(`${dir}: no such file or directory`);
  if (stats.isSymbolicLink()) throw new UsageError(`${dir}: a session directory must not be a symlink (Reasonix refuses it)`);
  if (!stats.isDirectory()) throw new UsageError(`${dir}: not a session directory`);
  const [manifest, log] = await Promise.all([
    lstat(join(dir, SESSION_FILES.manifest)).catch(() => undefined),
    lstat(join(dir, SESSION_FILES.log)).catch(() => undefined),
  ]);
  if (!manifest && !log) throw new UsageError(`${dir}: not a session directory (no manifest.json, no events.frames)`);
}
