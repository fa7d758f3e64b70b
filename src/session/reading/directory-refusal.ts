import { join } from 'node:path';
import { errorFromProblem, type RxError } from '../../errors/index.js';
import { logFile } from './log-file.js';
import { readSessionDirectory } from './session-directory.js';
import { SESSION_FILES } from './session-files.js';

/**
 * Why Reasonix refuses a session before it reads a batch (its manifest, its header, a file it must use,
 * the log file itself), as the coded error `readSession` reports; undefined when nothing there stops it.
 * A stream of batches checks it first: a log in a session Reasonix refuses gives no batch, whatever it holds.
 */
export async function directoryRefusal(sessionDir: string): Promise<RxError | undefined> {
  const refusal =
    (await readSessionDirectory(sessionDir)).problems.find((problem) => problem.severity === 'error') ??
    logFile(join(sessionDir, SESSION_FILES.log)).problem;
  return refusal && errorFromProblem(refusal);
}
