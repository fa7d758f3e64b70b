import type { Stats } from 'node:fs';
import type { Problem } from '../../errors/index.js';
import { statOrUndefined } from '../../fs/stat-or-undefined.js';

/**
 * The session's log as a file: its stats, or why Reasonix has no log to read there (missing, or not a
 * regular file). Followed if a symlink, as Reasonix opens the log by its path: a link to nothing is a
 * missing log.
 */
export function logFile(
  logPath: string,
): { stats: Stats; problem?: undefined } | { stats?: undefined; problem: Problem } {
  const stats = statOrUndefined(logPath);
  if (stats?.isFile()) return { stats };
  const message = stats ? 'events.frames is not a regular file' : 'events.frames is missing';
  // Stryker disable next-line StringLiteral: readSession refuses the problem, which sets its severity again
  return { problem: { code: 'RX_LOG_MISSING', severity: 'error', message, data: { file: logPath } } };
}
